/**
 * Writes the SQL engine's template into a bundle: `node --import tsx cdk/scripts/engine-template.ts
 * <dest>` builds the template for this checkout's schema (once per machine, in the OS temp folder:
 * shared/pglite/host.ts ensureTemplate) and copies what an engine reads of it into `<dest>`, with the
 * schema's key (exportTemplate). Run by cdk/constructs/esbuild-bundle.mjs beside every output file
 * that holds shared/pglite/host.ts: a deployed engine (the DDL Lambda's, the pgwire task's) then
 * starts from it instead of running initdb in a fresh /tmp. Prints `<dest>`.
 */
import { ensureTemplate, exportTemplate } from '../../shared/pglite/host';
import { engineSchemaSql } from '../../shared/system/registry';

const dest = process.argv[2];
if (!dest) {
  console.error('usage: node --import tsx cdk/scripts/engine-template.ts <dest>');
  process.exit(2);
}
const schemaSql = engineSchemaSql();
exportTemplate(await ensureTemplate(schemaSql), dest, schemaSql);
console.log(dest);
