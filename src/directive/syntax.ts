/**
 * Kubernetes name and label syntax. Everything that ends up in a label selector string is checked
 * here first, so that a value such as `a,b!=c` can never widen the selector.
 */

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export function isNamespaceName(value: string): boolean {
  return value.length <= 63 && DNS1123_LABEL.test(value);
}

export function isObjectName(value: string): boolean {
  return value.length <= 253 && DNS1123_SUBDOMAIN.test(value);
}

/** A qualified label key: an optional DNS subdomain prefix and `/`, then a name of 63 or fewer. */
export function isLabelKey(key: string): boolean {
  const slash = key.indexOf('/');
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  const name = slash === -1 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))) {
    return false;
  }
  return name.length <= 63 && LABEL_NAME.test(name);
}

export function isLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE.test(value);
}

/** `k1=v1,k2=v2` for validated labels; the empty string selects everything. */
export function labelSelector(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

export function matchesLabels(
  podLabels: Record<string, string> | undefined,
  selector: Record<string, string>,
): boolean {
  return Object.entries(selector).every(([key, value]) => podLabels?.[key] === value);
}
