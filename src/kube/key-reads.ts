import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { ObjectRef } from '../directive/types.js';
import { unlessNotFound } from './not-found.js';
import type { KubeRequests } from './requests.js';

/** One key of a ConfigMap or a Secret: what root-cert sync compares. */
export interface KeyReads {
  readConfigMapKey(ref: ObjectRef, key: string): Promise<string | undefined>;
  readSecretKey(ref: ObjectRef, key: string): Promise<Buffer | undefined>;
}

export class KeyReadClient implements KeyReads {
  private readonly core: CoreV1Api;

  constructor(
    kubeConfig: KubeConfig,
    private readonly requests: KubeRequests,
  ) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
  }

  /** A data key of a ConfigMap, or undefined when the ConfigMap or key does not exist yet. */
  async readConfigMapKey(ref: ObjectRef, key: string): Promise<string | undefined> {
    const what = `read configmap ${ref.namespace}/${ref.name}`;
    const configMap = await unlessNotFound(
      this.requests.call({ verb: 'get', what }, () => this.core.readNamespacedConfigMap(ref)),
    );
    return configMap?.data?.[key];
  }

  /** The decoded bytes of a Secret's key, or undefined when absent. Never logged. */
  async readSecretKey(ref: ObjectRef, key: string): Promise<Buffer | undefined> {
    const what = `read secret ${ref.namespace}/${ref.name}`;
    const secret = await unlessNotFound(
      this.requests.call({ verb: 'get', what }, () => this.core.readNamespacedSecret(ref)),
    );
    const encoded = secret?.data?.[key];
    return encoded === undefined ? undefined : Buffer.from(encoded, 'base64');
  }
}
