import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { authHeaders, credentialsFrom, tokenFrom } from '../../src/cli/credentials.js';

const BODY = '{"directive":{"namespace":"istio-system","name":"mesh-certs"}}';

describe('client credentials', () => {
  it('signs the exact body with X-Signature-256', () => {
    const headers = authHeaders(credentialsFrom({ POD_BOUNCER_HMAC_SECRET: 's3cret' }), BODY);
    const expected = createHmac('sha256', 's3cret').update(BODY).digest('hex');
    expect(headers).toEqual({ 'x-signature-256': `sha256=${expected}` });
  });

  it('signs as Standard Webhooks, verified by the reference library', () => {
    const secret = `whsec_${Buffer.from('a key of thirty-two bytes, fine!').toString('base64')}`;
    const headers = authHeaders(credentialsFrom({ POD_BOUNCER_STANDARD_SECRET: secret }), BODY);
    expect(() => new Webhook(secret).verify(BODY, headers)).not.toThrow();
    expect(() => new Webhook(secret).verify(`${BODY} `, headers)).toThrow();
  });

  it('sends a bearer token, and refuses two credentials at once', () => {
    expect(authHeaders(credentialsFrom({ POD_BOUNCER_TOKEN: 't' }), BODY)).toEqual({
      authorization: 'Bearer t',
    });
    expect(() => credentialsFrom({ POD_BOUNCER_TOKEN: 't', POD_BOUNCER_HMAC_SECRET: 's' })).toThrow(
      /Set only one of POD_BOUNCER_TOKEN/,
    );
    expect(() => credentialsFrom({ POD_BOUNCER_STANDARD_SECRET: 'whsec_%%%' })).toThrow(
      /whsec_<base64>/,
    );
  });

  it('gives the commands other than send a token only, and names it when it is missing', () => {
    expect(tokenFrom({ POD_BOUNCER_TOKEN: ' t ' }, 'status')).toEqual({
      kind: 'token',
      token: 't',
    });
    // A signing secret set beside the token is for send; status sends the token.
    expect(tokenFrom({ POD_BOUNCER_TOKEN: 't', POD_BOUNCER_HMAC_SECRET: 's' }, 'pause')).toEqual({
      kind: 'token',
      token: 't',
    });
    for (const env of [{}, { POD_BOUNCER_HMAC_SECRET: 's' }, { POD_BOUNCER_TOKEN: ' ' }]) {
      expect(() => tokenFrom(env, 'abort')).toThrow(/^pod-bouncer abort needs POD_BOUNCER_TOKEN/);
    }
  });
});
