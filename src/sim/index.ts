/**
 * A Kubernetes API simulator speaking the real REST protocol over plain HTTP, so that tests,
 * benchmarks and `pod-bouncer demo` drive the real @kubernetes/client-node end to end.
 */
export { startSimulator } from './simulator.js';
export { demoMesh, demoMeshWorkloads, meshCertsDirective } from './mesh.js';
export { serviceAccountJwt } from './service-account-token.js';
export type { ServiceAccountTokenSpec } from './service-account-token.js';
export type { DemoMeshOptions } from './mesh.js';
export type * from './types.js';
export type {
  DirectiveObject,
  DirectiveState,
  DirectiveStatus,
  KubeObject,
  ObjectMeta,
  OwnerReference,
  PodCondition,
  PodObject,
  PodSelectorSpec,
  RootCertSync,
} from './objects.js';
