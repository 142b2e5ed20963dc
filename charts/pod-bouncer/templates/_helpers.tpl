{{/* Names ------------------------------------------------------------------------------------ */}}

{{- define "pod-bouncer.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release-scoped name, kept short enough to take "-worker" or "-redis" and stay a DNS label. */}}
{{- define "pod-bouncer.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "pod-bouncer.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "pod-bouncer.selectorLabels" -}}
app.kubernetes.io/name: {{ include "pod-bouncer.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "pod-bouncer.labels" -}}
helm.sh/chart: {{ include "pod-bouncer.chart" . }}
{{ include "pod-bouncer.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: pod-bouncer
{{- end -}}

{{/* Base of the two service accounts' names (serviceAccount.name, else the release's full name). */}}
{{- define "pod-bouncer.serviceAccountName" -}}
{{- default (include "pod-bouncer.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{/* The api's service account: reads directives and pods, writes status and Events; bounces nothing. */}}
{{- define "pod-bouncer.apiServiceAccountName" -}}
{{- printf "%s-api" (include "pod-bouncer.serviceAccountName" .) -}}
{{- end -}}

{{/* The worker's service account: the only one that may delete or evict pods. */}}
{{- define "pod-bouncer.workerServiceAccountName" -}}
{{- printf "%s-worker" (include "pod-bouncer.serviceAccountName" .) -}}
{{- end -}}

{{/* Cluster-scoped names carry the namespace: the same release name may exist in two namespaces. */}}
{{- define "pod-bouncer.clusterRoleName" -}}
{{- printf "%s-%s" .Release.Namespace (include "pod-bouncer.fullname" .) -}}
{{- end -}}

{{- define "pod-bouncer.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{- define "pod-bouncer.redisName" -}}
{{- printf "%s-redis" (include "pod-bouncer.fullname" .) -}}
{{- end -}}

{{/* The built-in Redis's password: redis.builtin.auth.existingSecret, else one the chart generates. */}}
{{- define "pod-bouncer.redisAuthSecretName" -}}
{{- default (printf "%s-auth" (include "pod-bouncer.redisName" .)) .Values.redis.builtin.auth.existingSecret -}}
{{- end -}}

{{/* Secret holding redis.external.url when the chart stores it. */}}
{{- define "pod-bouncer.redisUrlSecretName" -}}
{{- printf "%s-redis-url" (include "pod-bouncer.fullname" .) -}}
{{- end -}}

{{/* Checks that cannot be said in values.schema.json, with a sentence naming the values. */}}
{{- define "pod-bouncer.validate" -}}
{{- $auth := .Values.auth -}}
{{- if not (or $auth.none $auth.tokensSecret.name $auth.hmacSecret.name $auth.standardSecret.name $auth.tokenReview.audience) -}}
{{- fail "auth: set auth.tokensSecret.name, auth.hmacSecret.name, auth.standardSecret.name or auth.tokenReview.audience, or auth.none=true to accept unauthenticated events explicitly." -}}
{{- end -}}
{{- if and $auth.tokenReview.audience (not $auth.tokenReview.allowedServiceAccounts) -}}
{{- fail "auth.tokenReview.allowedServiceAccounts must list the namespace:name service accounts allowed when auth.tokenReview.audience is set." -}}
{{- end -}}
{{- $redis := .Values.redis -}}
{{- $sources := 0 -}}
{{- if .Values.redisSentinel.enabled }}{{ $sources = add1 $sources }}{{ end -}}
{{- if .Values.redisCluster.enabled }}{{ $sources = add1 $sources }}{{ end -}}
{{- if $redis.builtin.enabled }}{{ $sources = add1 $sources }}{{ end -}}
{{- if $redis.external.url }}{{ $sources = add1 $sources }}{{ end -}}
{{- if $redis.external.existingSecret }}{{ $sources = add1 $sources }}{{ end -}}
{{- if ne $sources 1 -}}
{{- fail "redis: choose exactly one of redis.builtin.enabled=true, redis.external.url, redis.external.existingSecret, redisSentinel.enabled=true or redisCluster.enabled=true." -}}
{{- end -}}
{{- if and .Values.redisSentinel.enabled (not .Values.redisSentinel.sentinels) -}}
{{- fail "redisSentinel.sentinels must list the sentinels (host:port) when redisSentinel.enabled=true." -}}
{{- end -}}
{{- if and .Values.redisCluster.enabled (not .Values.redisCluster.nodes) -}}
{{- fail "redisCluster.nodes must list seed nodes (host:port) when redisCluster.enabled=true." -}}
{{- end -}}
{{- if and .Values.redisCluster.enabled (not (regexMatch "\\{[^}]+\\}" .Values.config.queuePrefix)) -}}
{{- fail "config.queuePrefix must carry a hash tag such as {pod-bouncer} when redisCluster.enabled=true." -}}
{{- end -}}
{{- if and (or .Values.serviceMonitor.enabled .Values.podMonitor.enabled) .Values.networkPolicy.enabled (not .Values.networkPolicy.metricsFrom) -}}
{{- fail "serviceMonitor.enabled and podMonitor.enabled need networkPolicy.metricsFrom (your Prometheus pods) so that the worker can be scraped, or networkPolicy.enabled=false." -}}
{{- end -}}
{{- if and .Values.serviceMonitor.enabled .Values.podMonitor.enabled -}}
{{- fail "serviceMonitor.enabled and podMonitor.enabled exclude each other: each would scrape every pod." -}}
{{- end -}}
{{- if and $redis.external.url (not (regexMatch "^rediss?://" $redis.external.url)) -}}
{{- fail "redis.external.url must be a redis:// or rediss:// URL." -}}
{{- end -}}
{{- if and .Values.ingress.enabled .Values.knative.enabled -}}
{{- fail "ingress.enabled and knative.enabled exclude each other: with Knative, expose the dashboard through Knative's own routing." -}}
{{- end -}}
{{- if and .Values.ingress.enabled (not .Values.dashboard.existingSecret) -}}
{{- fail "ingress.enabled exposes only the dashboard, which is off without dashboard.existingSecret." -}}
{{- end -}}
{{- if and .Values.keda.enabled (not (include "pod-bouncer.kedaAddress" .)) -}}
{{- fail "keda.redis.address (host:port) is required when Redis comes from redis.external.existingSecret, redisSentinel or redisCluster." -}}
{{- end -}}
{{- end -}}

{{/* Environment ---------------------------------------------------------------------------------- */}}

{{/*
REDIS_URL, always from a Secret except for the built-in Redis, whose URL carries no secret (its
password, if any, is spliced in by Kubernetes from REDIS_PASSWORD, which must come first).
*/}}
{{- define "pod-bouncer.redisEnv" -}}
{{- $redis := .Values.redis -}}
{{- if or .Values.redisSentinel.enabled .Values.redisCluster.enabled -}}
{{ include "pod-bouncer.redisTopologyEnv" . }}
{{- else if $redis.builtin.enabled -}}
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "pod-bouncer.redisAuthSecretName" . }}
      key: {{ $redis.builtin.auth.key }}
- name: REDIS_URL
  value: {{ printf "redis://:$(REDIS_PASSWORD)@%s:6379" (include "pod-bouncer.redisName" .) | quote }}
{{- else -}}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ default (include "pod-bouncer.redisUrlSecretName" .) $redis.external.existingSecret }}
      key: {{ ternary $redis.external.existingSecretKey "url" (not (empty $redis.external.existingSecret)) }}
{{- end -}}
{{- end -}}

{{/* REDIS_SENTINELS or REDIS_CLUSTER_NODES, with the data nodes' credentials and TLS. */}}
{{- define "pod-bouncer.redisTopologyEnv" -}}
{{- $t := ternary .Values.redisSentinel .Values.redisCluster .Values.redisSentinel.enabled -}}
{{- if .Values.redisSentinel.enabled -}}
- name: REDIS_SENTINELS
  value: {{ join "," $t.sentinels | quote }}
- name: REDIS_SENTINEL_NAME
  value: {{ $t.masterName | quote }}
{{- with $t.sentinelPasswordSecret.name }}
- name: REDIS_SENTINEL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $t.sentinelPasswordSecret.key }}
{{- end }}
{{- else -}}
- name: REDIS_CLUSTER_NODES
  value: {{ join "," $t.nodes | quote }}
{{- end }}
{{- with $t.username }}
- name: REDIS_USERNAME
  value: {{ . | quote }}
{{- end }}
{{- with $t.passwordSecret.name }}
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $t.passwordSecret.key }}
{{- end }}
- name: REDIS_TLS
  value: {{ $t.tls | quote }}
{{- end -}}

{{/* NOTIFY_URL from a Secret and NOTIFY_FORMAT, when notifications.urlSecret.name is set. */}}
{{- define "pod-bouncer.notifyEnv" -}}
{{- with .Values.notifications.urlSecret.name }}
- name: NOTIFY_URL
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $.Values.notifications.urlSecret.key }}
{{- end }}
- name: NOTIFY_FORMAT
  value: {{ .Values.notifications.format | quote }}
{{- end -}}

{{/*
What both roles read: Redis, notifications, and every key of .Values.config as its variable
(workerConcurrency is WORKER_CONCURRENCY, a list is joined with commas, an empty value is left
unset). Keys and defaults are the program's own, checked by the chart test.
*/}}
{{- define "pod-bouncer.commonEnv" -}}
{{ include "pod-bouncer.redisEnv" . }}
{{- range $key, $value := .Values.config }}
{{- if or (kindIs "bool" $value) (not (empty $value)) }}
{{- /* Helm reads YAML numbers as floats: 1048576 would print as 1.048576e+06. */}}
{{- $text := ternary (int64 $value) $value (kindIs "float64" $value) }}
- name: {{ $key | snakecase | upper }}
  value: {{ join "," $text | quote }}
{{- end }}
{{- end }}
{{- include "pod-bouncer.notifyEnv" . }}
{{- if include "pod-bouncer.prometheusToken" . }}
- name: PROMETHEUS_TOKEN_FILE
  value: /var/run/secrets/pod-bouncer/prometheus/token
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The api's own settings: body limit, webhook credentials (Secret refs only), dashboard. */}}
{{- define "pod-bouncer.apiEnv" -}}
{{- $auth := .Values.auth -}}
{{ include "pod-bouncer.commonEnv" . }}
{{- if $auth.none }}
- name: WEBHOOK_AUTH
  value: none
{{- end }}
{{- if $auth.tokensSecret.name }}
- name: WEBHOOK_TOKENS
  valueFrom:
    secretKeyRef:
      name: {{ $auth.tokensSecret.name }}
      key: {{ $auth.tokensSecret.key }}
{{- end }}
{{- if $auth.hmacSecret.name }}
- name: WEBHOOK_HMAC_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ $auth.hmacSecret.name }}
      key: {{ $auth.hmacSecret.key }}
{{- end }}
{{- if $auth.standardSecret.name }}
- name: WEBHOOK_STANDARD_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ $auth.standardSecret.name }}
      key: {{ $auth.standardSecret.key }}
{{- end }}
{{- if $auth.tokenReview.audience }}
- name: WEBHOOK_TOKENREVIEW_AUDIENCE
  value: {{ $auth.tokenReview.audience | quote }}
- name: WEBHOOK_ALLOWED_SERVICEACCOUNTS
  value: {{ join "," $auth.tokenReview.allowedServiceAccounts | quote }}
{{- end }}
{{- with .Values.dashboard }}
{{- if .existingSecret }}
- name: DASHBOARD_USER
  valueFrom:
    secretKeyRef:
      name: {{ .existingSecret }}
      key: {{ .userKey }}
- name: DASHBOARD_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .existingSecret }}
      key: {{ .passwordKey }}
{{- end }}
{{- end }}
{{- end -}}

{{/* KEDA ----------------------------------------------------------------------------------------- */}}

{{/* host:port KEDA reads the queue from; empty when it cannot be known (external URL in a Secret). */}}
{{- define "pod-bouncer.kedaAddress" -}}
{{- if .Values.keda.redis.address -}}
{{- .Values.keda.redis.address -}}
{{- else if .Values.redis.builtin.enabled -}}
{{- printf "%s.%s.svc:6379" (include "pod-bouncer.redisName" .) .Release.Namespace -}}
{{- else if .Values.redis.external.url -}}
{{- $url := urlParse .Values.redis.external.url -}}
{{- $url.host | contains ":" | ternary $url.host (printf "%s:6379" $url.host) -}}
{{- end -}}
{{- end -}}

{{/* The database KEDA reads: keda.redis.databaseIndex, else the /N path of redis.external.url. */}}
{{- define "pod-bouncer.kedaDatabaseIndex" -}}
{{- $db := .Values.keda.redis.databaseIndex | int -}}
{{- if and (eq $db 0) .Values.redis.external.url -}}
{{- $path := (urlParse .Values.redis.external.url).path -}}
{{- if regexMatch "^/[0-9]+$" $path }}{{ $db = trimPrefix "/" $path | int }}{{ end -}}
{{- end -}}
{{- $db -}}
{{- end -}}

{{/* The password in redis.external.url (after the colon of user:password), or nothing. */}}
{{- define "pod-bouncer.externalUrlPassword" -}}
{{- with .Values.redis.external.url -}}
{{- $userinfo := (urlParse .).userinfo -}}
{{- if contains ":" $userinfo -}}
{{- regexReplaceAll "^[^:]*:" $userinfo "" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The Secret ("name/key") holding the password KEDA needs, or nothing: keda.redis.passwordSecret, the
built-in Redis's auth Secret, or the password the chart stored from redis.external.url.
*/}}
{{- define "pod-bouncer.kedaPasswordSecret" -}}
{{- if .Values.keda.redis.passwordSecret.name -}}
{{- printf "%s/%s" .Values.keda.redis.passwordSecret.name .Values.keda.redis.passwordSecret.key -}}
{{- else if .Values.redis.builtin.enabled -}}
{{- printf "%s/%s" (include "pod-bouncer.redisAuthSecretName" .) .Values.redis.builtin.auth.key -}}
{{- else if and (not .Values.redis.external.existingSecret) (include "pod-bouncer.externalUrlPassword" .) -}}
{{- printf "%s/password" (include "pod-bouncer.redisUrlSecretName" .) -}}
{{- end -}}
{{- end -}}

{{/* NetworkPolicy ------------------------------------------------------------------------------- */}}

{{/*
The API server's addresses as a JSON list of CIDRs: networkPolicy.apiServer.cidrs, else the
default/kubernetes EndpointSlice's addresses, looked up at install and upgrade; [] (any address)
where no cluster answers (helm template).
*/}}
{{- define "pod-bouncer.apiServerCidrs" -}}
{{- $cidrs := .Values.networkPolicy.apiServer.cidrs -}}
{{- if not $cidrs -}}
{{- $slice := lookup "discovery.k8s.io/v1" "EndpointSlice" "default" "kubernetes" -}}
{{- range ($slice.endpoints | default list) -}}
{{- range .addresses -}}
{{- $cidrs = append $cidrs (ternary (printf "%s/128" .) (printf "%s/32" .) (contains ":" .)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $cidrs | toJson -}}
{{- end -}}

{{/* Egress of the api and worker: DNS, Redis, the API server; nothing else. */}}
{{- define "pod-bouncer.egressRules" -}}
{{- $np := .Values.networkPolicy -}}
# DNS to any address: cluster DNS may be a Service, a node-local cache or a host-network pod.
- ports:
    - port: 53
      protocol: UDP
    - port: 53
      protocol: TCP
{{- if .Values.redis.builtin.enabled }}
# The built-in Redis.
- to:
    - podSelector:
        matchLabels:
          {{- include "pod-bouncer.selectorLabels" . | nindent 10 }}
          app.kubernetes.io/component: redis
  ports:
    - port: 6379
      protocol: TCP
{{- else }}
# The external Redis.
- ports:
    - port: {{ $np.redis.port }}
      protocol: TCP
  {{- with $np.redis.cidrs }}
  to:
    {{- range . }}
    - ipBlock:
        cidr: {{ . }}
    {{- end }}
  {{- end }}
{{- end }}
{{- if .Values.redisSentinel.enabled }}
# The sentinels, which name the master (the master itself is on networkPolicy.redis.port).
- ports:
    - port: {{ $np.redis.sentinelPort }}
      protocol: TCP
  {{- with $np.redis.cidrs }}
  to:
    {{- range . }}
    - ipBlock:
        cidr: {{ . }}
    {{- end }}
  {{- end }}
{{- end }}
# The Kubernetes API server (pods, directives, events, TokenReview).
- ports:
    {{- range $np.apiServer.ports }}
    - port: {{ . }}
      protocol: TCP
    {{- end }}
  {{- with (include "pod-bouncer.apiServerCidrs" . | fromJsonArray) }}
  to:
    {{- range . }}
    - ipBlock:
        cidr: {{ . }}
    {{- end }}
  {{- end }}
{{- include "pod-bouncer.prometheusEgress" . }}
{{- with $np.extraEgress }}
# Egress rules of the operator's own: a notification receiver, a proxy, …
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Prometheus ------------------------------------------------------------------------------------ */}}

{{/* "true" when a bearer token for Prometheus is mounted (prometheus.token), else empty. */}}
{{- define "pod-bouncer.prometheusToken" -}}
{{- $token := .Values.prometheus.token -}}
{{- if and $token.serviceAccountToken.enabled $token.secret.name -}}
{{- fail "prometheus.token: choose serviceAccountToken.enabled or secret.name, not both." -}}
{{- end -}}
{{- if or $token.serviceAccountToken.enabled $token.secret.name }}true{{ end -}}
{{- end -}}

{{/* The token's mount in a container: the kubelet swaps the file as it rotates, and
pod-bouncer reads it again at each request. */}}
{{- define "pod-bouncer.prometheusTokenMount" -}}
{{- if include "pod-bouncer.prometheusToken" . }}
- name: prometheus-token
  mountPath: /var/run/secrets/pod-bouncer/prometheus
  readOnly: true
{{- end }}
{{- end -}}

{{/* The token's volume: a projected service-account token of the pod, or a Secret's key. */}}
{{- define "pod-bouncer.prometheusTokenVolume" -}}
{{- $token := .Values.prometheus.token -}}
{{- if $token.serviceAccountToken.enabled }}
- name: prometheus-token
  projected:
    sources:
      - serviceAccountToken:
          path: token
          expirationSeconds: {{ int $token.serviceAccountToken.expirationSeconds }}
          {{- with $token.serviceAccountToken.audience }}
          audience: {{ . | quote }}
          {{- end }}
{{- else if $token.secret.name }}
- name: prometheus-token
  secret:
    secretName: {{ $token.secret.name }}
    items:
      - key: {{ $token.secret.key }}
        path: token
{{- end }}
{{- end -}}

{{/* Egress to config.prometheusUrl's port, when the NetworkPolicy is on and a URL is set (an
optional key of config, hence index). */}}
{{- define "pod-bouncer.prometheusEgress" -}}
{{- with index .Values.config "prometheusUrl" }}
{{- $url := urlParse . -}}
{{- $port := (regexFind ":[0-9]+$" $url.host | trimPrefix ":") | default (ternary "443" "80" (eq $url.scheme "https")) }}
# Prometheus (alerts and query gates, config.prometheusUrl).
- ports:
    - port: {{ $port }}
      protocol: TCP
  {{- with $.Values.networkPolicy.prometheusTo }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- end -}}
