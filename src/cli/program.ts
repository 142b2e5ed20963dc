import { Command, CommanderError } from 'commander';
import { packageVersion } from '../package-root.js';
import { registerClientCommands } from './client-commands.js';
import { commandName, PLUGIN_EXECUTABLE } from './invocation.js';
import { registerServerCommands } from './server-commands.js';

const ABOUT =
  'Restarts Istio-controlled pods in order when mesh certificates rotate.\n' +
  'Server subcommands run pod-bouncer; client subcommands talk to a running api.';

const AS_PLUGIN =
  `\n\nThis is the kubectl plugin: kubectl runs ${PLUGIN_EXECUTABLE} from PATH for\n` +
  '"kubectl pod-bouncer <command>", which is "pod-bouncer <command>". Client\n' +
  "subcommands talk to the api at POD_BOUNCER_URL, not to kubectl's cluster.";

function examples(name: string): string {
  const rows: [string, string][] = [
    ['sim', 'a simulated cluster to try things on'],
    ['all', 'the api and the worker'],
    ['send istio-system/mesh-certs', 'post a cert-issued event'],
    ['status --watch istio-system/mesh-certs', 'follow the run until it ends'],
  ];
  const width = Math.max(...rows.map(([args]) => `${name} ${args}`.length)) + 1;
  const lines = rows.map(([args, what]) => `  ${`${name} ${args}`.padEnd(width)}${what}\n`);
  return (
    `\nExamples:\n${lines.join('')}` +
    `\nRun "${name} help <command>" for its options and the environment variables it reads.\n`
  );
}

/**
 * The whole command tree; exit codes are set through `setExitCode`, never by commander itself.
 * Its usage lines name the command as it was started: `pod-bouncer`, or `kubectl pod-bouncer`
 * when kubectl runs it as a plugin.
 */
export function buildProgram(
  setExitCode: (code: number) => void,
  name = commandName() ?? 'pod-bouncer',
): Command {
  const plugin = name.startsWith('kubectl ');
  const program = new Command(name)
    .description(plugin ? `${ABOUT}${AS_PLUGIN}` : ABOUT)
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpCommand('help [command]', 'show help for a command')
    .showHelpAfterError(`(run ${name} help for the commands and their options)`)
    .addHelpText('after', examples(name))
    .exitOverride();
  registerServerCommands(program, setExitCode);
  registerClientCommands(program, { env: process.env, out: process.stdout, setExitCode });
  return program;
}

/**
 * Commander's own exits: help and version asked for end with 0 (commander says so in
 * `exitCode`), anything else is a usage error (2), help printed for a missing command included.
 */
export function commanderExitCode(error: CommanderError): number {
  return error.exitCode === 0 ? 0 : 2;
}

export { CommanderError };
