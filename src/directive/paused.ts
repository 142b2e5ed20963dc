import { PAUSED_ANNOTATION, type Directive } from './types.js';

/** True while the directive carries `pod-bouncer.io/paused: "true"` (DESIGN §3, §4). */
export function isPaused(directive: Pick<Directive, 'metadata'>): boolean {
  return directive.metadata.annotations?.[PAUSED_ANNOTATION] === 'true';
}
