import { DONE, type StepContext, type StepOutcome } from '../context.js';
import { digestOf } from '../wakeups.js';

/**
 * Waits until the namespace's root-cert ConfigMap carries the issuer's root certificate, so the
 * pods about to restart come back trusting the new root. Byte-exact comparison; a missing
 * ConfigMap, Secret or key means "not yet". Secret bytes never leave this function.
 */
export async function rootCertSync(context: StepContext): Promise<StepOutcome> {
  const sync = context.data.selector.rootCertSync;
  if (sync === undefined) return DONE;
  const { kube, settings } = context.deps;
  // The ConfigMap from the shared watch when synced; the Secret is only ever read by name.
  const watched = context.deps.view?.configMapKey(sync.configMapRef, sync.configMapKey);
  const [secret, configMap] = await Promise.all([
    kube.readSecretKey(sync.secretRef, sync.secretKey),
    watched === undefined
      ? kube.readConfigMapKey(sync.configMapRef, sync.configMapKey)
      : Promise.resolve(watched.value),
  ]);
  if (secret !== undefined && configMap !== undefined && Buffer.from(configMap).equals(secret)) {
    context.note(
      `root cert of ${sync.configMapRef.namespace}/${sync.configMapRef.name} matches secret ${sync.secretRef.namespace}/${sync.secretRef.name}`,
    );
    return DONE;
  }
  const missing =
    secret === undefined
      ? 'Secret key missing'
      : configMap === undefined
        ? 'ConfigMap key missing'
        : 'ConfigMap differs';
  return {
    wait: {
      what: `root cert in configmap ${sync.configMapRef.namespace}/${sync.configMapRef.name} key ${sync.configMapKey} to match secret ${sync.secretRef.namespace}/${sync.secretRef.name} key ${sync.secretKey} (${missing})`,
      status: `root cert sync (${missing})`,
      timeoutSeconds: settings.rootCertSyncTimeoutSeconds,
      ...(secret === undefined
        ? {}
        : {
            wake: {
              kind: 'configMapKey' as const,
              ref: sync.configMapRef,
              key: sync.configMapKey,
              digest: digestOf(secret),
            },
          }),
    },
  };
}
