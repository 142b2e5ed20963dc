/** Where status transitions are sent (NOTIFY_URL, else K_SINK), and in which format. */

import { readHttpUrl, readSetting, type Env } from './environment.js';

export interface NotifyConfig {
  readonly url: string;
  readonly format: 'cloudevents' | 'slack';
}

export function notify(env: Env): NotifyConfig | undefined {
  const format = readSetting<NotifyConfig['format']>(env, 'NOTIFY_FORMAT');
  const target = readHttpUrl(env, 'NOTIFY_URL') ?? readHttpUrl(env, 'K_SINK');
  return target === undefined ? undefined : { url: target, format };
}
