/**
 * Where an error's `position` points. The API gives a 0-based BYTE offset into the UTF-8 query
 * text (as Materialize does); a terminal or a browser needs the line and a column in characters.
 * Pure and free of Node APIs: the console (browser) uses it too.
 */

export interface Located {
  /** 1-based line number of the position. */
  readonly lineNumber: number;
  /** The whole line holding the position, without its newline. */
  readonly line: string;
  /** The part of that line before the position. */
  readonly before: string;
  /** 0-based column in Unicode code points. */
  readonly column: number;
}

function utf8Length(cp: number): number {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/**
 * The UTF-16 index at byte offset `byte` of `text`. An offset inside a multi-byte character
 * resolves to that character; one past the end resolves to the end.
 */
export function indexOfByte(text: string, byte: number): number {
  let bytes = 0;
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const next = bytes + utf8Length(cp);
    if (byte < next) return i;
    bytes = next;
    i += cp > 0xffff ? 2 : 1;
  }
  return text.length;
}

export function locate(text: string, bytePosition: number): Located {
  const at = indexOfByte(text, Math.max(0, bytePosition));
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  const nl = text.indexOf('\n', at);
  const lineEnd = nl < 0 ? text.length : nl;
  const line = text.slice(lineStart, lineEnd).replace(/\r$/, '');
  const before = text.slice(lineStart, at);
  let lineNumber = 1;
  for (let i = 0; i < lineStart; i++) if (text.charCodeAt(i) === 10) lineNumber++;
  return { lineNumber, line, before, column: [...before].length };
}

/** Combining marks and zero-width characters take no column. */
function isZeroWidth(cp: number): boolean {
  return (cp >= 0x0300 && cp <= 0x036f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0xfe00 && cp <= 0xfe0f) || cp === 0x20e3;
}

/** East Asian wide and fullwidth characters and emoji take two columns in a terminal. */
function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

/**
 * Blanks that put a caret under the character after `before`: a tab stays a tab (so the
 * terminal expands both lines alike), a wide character becomes two spaces.
 */
export function caretPadding(before: string): string {
  let out = '';
  for (const ch of before) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\t') out += '\t';
    else if (isZeroWidth(cp)) continue;
    else out += isWide(cp) ? '  ' : ' ';
  }
  return out;
}
