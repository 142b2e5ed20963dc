// Deterministic randomness: fault decisions and generated names replay from a seed.

/** mulberry32: a tiny, fast PRNG good enough for test scheduling (not for secrets). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The alphabet Kubernetes uses for generated name suffixes (no vowels, no look-alikes).
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function randomSuffix(random: () => number, length = 5): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out += NAME_ALPHABET[Math.floor(random() * NAME_ALPHABET.length)];
  }
  return out;
}
