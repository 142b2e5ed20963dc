import type { CertIssued } from './cert-issued.js';

/**
 * An event as it counts once received (DESIGN §2): an `issuedAt` ahead of this server's clock (a
 * sender's clock running fast; `parseTime` refused anything more than 5 minutes ahead) is the
 * moment it was received, for choosing pods and for ordering runs. Left as sent, it would spare
 * replacements started after the run was accepted and make the next genuine event look older than
 * it. The value as sent is kept in `sentIssuedAt`: a repeat of the same event is still the same
 * issuance. Pure.
 */
export function asReceived(event: CertIssued, receivedAt: number): CertIssued {
  if (event.kind === 'ignored' || event.issuedAt === undefined) return event;
  if (event.issuedAt.getTime() <= receivedAt) return event;
  return { ...event, issuedAt: new Date(receivedAt), sentIssuedAt: event.issuedAt };
}
