/**
 * What the client prints of a server's words: every server string loses its control characters
 * before it reaches the user's terminal (`plain-text.ts` says why).
 */
export { plainJson, plainText } from '../plain-text.js';
