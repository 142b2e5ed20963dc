import { Command, CommanderError } from 'commander';
import { packageVersion } from '../package-root.js';
import { registerClientCommands } from './client-commands.js';
import { registerServerCommands } from './server-commands.js';

/** The whole command tree; exit codes are set through `setExitCode`, never by commander itself. */
export function buildProgram(setExitCode: (code: number) => void): Command {
  const program = new Command('pod-bouncer')
    .description(
      'Restarts Istio-controlled pods in order when mesh certificates rotate.\n' +
        'Server subcommands run pod-bouncer; client subcommands talk to a running api.',
    )
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpCommand('help [command]', 'show help for a command')
    .showHelpAfterError('(run pod-bouncer help for the commands and their options)')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  pod-bouncer sim                                    a simulated cluster to try things on\n' +
        '  pod-bouncer all                                    the api and the worker\n' +
        '  pod-bouncer send istio-system/mesh-certs           post a cert-issued event\n' +
        '  pod-bouncer status --watch istio-system/mesh-certs follow the run until it ends\n' +
        '\nRun "pod-bouncer help <command>" for its options and the environment variables it reads.\n',
    )
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
