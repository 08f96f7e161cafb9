/**
 * Loaded into ddlctl (`node --import`) by tests of "nothing listens on the default URL": on a
 * shared machine a real `npm start` may hold 127.0.0.1:6876, so ddlctl's requests to
 * REDIRECT_HOST_FROM go to REDIRECT_HOST_TO instead, where the test made sure nothing listens.
 * Everything else in ddlctl (how it chose the URL, what it says about it) runs unchanged.
 */
const from = process.env.REDIRECT_HOST_FROM;
const to = process.env.REDIRECT_HOST_TO;
if (!from || !to) throw new Error('redirect-host.mjs needs REDIRECT_HOST_FROM and REDIRECT_HOST_TO');
const realFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.host !== from) return realFetch(input, init);
  url.host = to;
  return realFetch(input instanceof Request ? new Request(url, input) : url, init);
};
