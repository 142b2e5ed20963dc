/** The gates every directive gets (GATE_ALERTS, GATE_WINDOWS), and the Prometheus they ask. */

import { alertNames } from '../gates/alert-names.js';
import type { Gate, GatesConfig } from '../gates/types.js';
import { parseWindowsText } from '../gates/windows.js';
import { ConfigError, readHttpUrl, readInteger, readText, type Env } from './environment.js';

function alertsGate(env: Env, prometheusUrl: string | undefined): Gate | undefined {
  const alerts = readText(env, 'GATE_ALERTS');
  if (alerts === undefined) return undefined;
  if (prometheusUrl === undefined) {
    throw new ConfigError('GATE_ALERTS needs PROMETHEUS_URL, the Prometheus it asks for alerts.');
  }
  const compiled = alertNames(alerts);
  if ('problem' in compiled) {
    throw new ConfigError(
      `GATE_ALERTS must be an RE2 regular expression of alert names (as PromQL's =~), not "${alerts}": ${compiled.problem}.`,
    );
  }
  return { alerts };
}

function windowsGate(env: Env): Gate | undefined {
  const windows = readText(env, 'GATE_WINDOWS');
  if (windows === undefined) return undefined;
  try {
    return { windows: parseWindowsText(windows) };
  } catch (error) {
    throw new ConfigError(`GATE_WINDOWS is not valid: ${(error as Error).message}.`);
  }
}

export function gates(env: Env): GatesConfig {
  const prometheusUrl = readHttpUrl(env, 'PROMETHEUS_URL');
  const installation = [alertsGate(env, prometheusUrl), windowsGate(env)].filter(
    (gate) => gate !== undefined,
  );
  return {
    prometheusUrl,
    prometheusTokenFile: readText(env, 'PROMETHEUS_TOKEN_FILE'),
    installation: Object.freeze(installation),
    intervalSeconds: readInteger(env, 'GATE_INTERVAL_SECONDS'),
    timeoutSeconds: readInteger(env, 'GATE_TIMEOUT_SECONDS'),
  };
}
