import { KubeConfig } from '@kubernetes/client-node';

/**
 * Loads API access: an explicit kubeconfig file (KUBECONFIG) or client-node's default search
 * (in-cluster service account, else ~/.kube/config), then the chosen context if one is named.
 */
export function loadKubeConfig(options: { kubeconfig?: string; context?: string }): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (options.kubeconfig !== undefined) kubeConfig.loadFromFile(options.kubeconfig);
  else kubeConfig.loadFromDefault();
  if (options.context !== undefined) kubeConfig.setCurrentContext(options.context);
  return kubeConfig;
}
