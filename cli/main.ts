/** ddlctl's entry: parse, run, and turn errors into a message and an exit code. */
import pc from 'picocolors';
import { buildProgram } from './program';
import { CliError, EXIT } from './errors';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

let exitCode: number = EXIT.ok;
const program = buildProgram((code) => {
  exitCode = code;
});
program.exitOverride();

try {
  await program.parseAsync(process.argv);
} catch (err) {
  const e = err as Error & { code?: string; exitCode?: number };
  if (e.code?.startsWith('commander.')) {
    // Help and version exit 0; usage errors were already printed by commander.
    exitCode = e.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else if (err instanceof CliError) {
    process.stderr.write(`${pc.red('ddlctl:')} ${err.message}\n`);
    exitCode = err.exitCode;
  } else {
    process.stderr.write(`${pc.red('ddlctl: unexpected error:')} ${e.stack ?? e.message}\n`);
    exitCode = EXIT.failed;
  }
}
// Flush stdout before exiting: a pipe may still hold a large table.
process.stdout.write('', () => process.exit(exitCode));
