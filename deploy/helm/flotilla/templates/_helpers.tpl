{{/* The labels every object carries, with the service's component when given. */}}
{{- define "flotilla.labels" -}}
app.kubernetes.io/name: flotilla
{{- with .component }}
app.kubernetes.io/component: {{ . }}
{{- end }}
app.kubernetes.io/part-of: flotilla
{{- end }}

{{- define "flotilla.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* Where a pod that talks to this cluster's API server reaches it, when apiServer.host says (env entries). */}}
{{- define "flotilla.apiServerEnv" -}}
{{- if .Values.apiServer.host -}}
# No kube-proxy routes the kubernetes Service's ClusterIP: in-cluster clients go to the API server itself.
- name: KUBERNETES_SERVICE_HOST
  value: {{ .Values.apiServer.host | quote }}
- name: KUBERNETES_SERVICE_PORT
  value: {{ .Values.apiServer.port | toString | quote }}
{{- end }}
{{- end }}

{{/* The Secret key reference of one connection setting. */}}
{{- define "flotilla.secretEnv" -}}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ .root.Values.connections.secretName }}
      key: {{ .key }}
      {{- if .optional }}
      optional: true
      {{- end }}
{{- end }}

{{/*
One service as deploy/services/<service>.yaml lays it out: ConfigMap and Deployment (named by .name), and, unless
.secondary (a further member-agent), its ServiceAccount and metrics Service (named by .service); a PodDisruptionBudget with 2+ replicas.
Arguments: root, service, name, replicas, resources, config, and optionally apiPorts, volumeMounts, volumes,
selector (extra selector labels), recreate, apiServerToken (the one service that talks to this cluster's API server),
port and apiPort (the pod's HTTP and API ports: 8080 and 8081, others with host networking), hostNetwork (this
service on the node's network even when hostNetwork.enabled is not).
*/}}
{{- define "flotilla.service" -}}
{{- $root := .root -}}
{{- $port := .port | default 8080 -}}
{{- $apiPort := .apiPort | default 8081 -}}
{{- $hostNetwork := or $root.Values.hostNetwork.enabled .hostNetwork -}}
{{- $labels := include "flotilla.labels" (dict "component" .service) -}}
{{- $selector := merge (dict "app.kubernetes.io/name" "flotilla" "app.kubernetes.io/component" .service) (.selector | default dict) -}}
{{- if not .secondary }}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: flotilla-{{ .service }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- $labels | nindent 4 }}
# Flotilla's own services talk to NATS and Redis only, never to this cluster's API server (but the kube-bridge).
automountServiceAccountToken: {{ .apiServerToken | default false }}
---
apiVersion: v1
kind: Service
metadata:
  name: flotilla-{{ .service }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- $labels | nindent 4 }}
  annotations:
    prometheus.io/scrape: "true"
    prometheus.io/port: "8080"
    prometheus.io/path: /metrics
spec:
  type: ClusterIP
  selector:
    app.kubernetes.io/name: flotilla
    app.kubernetes.io/component: {{ .service }}
  ports:
    {{- if .apiPorts }}
    - name: api
      port: 8081
      targetPort: api
      protocol: TCP
    # The API server calls admission webhooks over HTTPS on this port; the gateway serves /validate on its API port.
    - name: webhook
      port: 443
      targetPort: api
      protocol: TCP
    {{- end }}
    - name: metrics
      port: 8080
      targetPort: metrics
      protocol: TCP
{{- end }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .name }}-config
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- $labels | nindent 4 }}
data:
  FLOTILLA_PREFIX: {{ $root.Values.prefix | quote }}
  LOG_LEVEL: {{ $root.Values.logLevel | quote }}
  HTTP_HOST: 0.0.0.0
  HTTP_PORT: {{ $port | toString | quote }}
  {{- range $k, $v := .config }}
  {{ $k }}: {{ $v | toString | quote }}
  {{- end }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .name }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- $labels | nindent 4 }}
spec:
  replicas: {{ .replicas }}
  revisionHistoryLimit: 5
  strategy:
    {{- if .recreate }}
    type: Recreate
    {{- else if $hostNetwork }}
    # A surge pod would want the ports of the pod it replaces, on the same node: replace first, then start.
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 1
      maxSurge: 0
    {{- else }}
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 0
      maxSurge: 1
    {{- end }}
  selector:
    matchLabels:
      {{- toYaml $selector | nindent 6 }}
  template:
    metadata:
      labels:
        {{- $labels | nindent 8 }}
        {{- with .selector }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        prometheus.io/scrape: "true"
        prometheus.io/port: {{ $port | toString | quote }}
        prometheus.io/path: /metrics
    spec:
      {{- if $hostNetwork }}
      hostNetwork: true
      {{- end }}
      serviceAccountName: flotilla-{{ .service }}
      automountServiceAccountToken: {{ .apiServerToken | default false }}
      terminationGracePeriodSeconds: 30
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        runAsGroup: 1000
        fsGroup: 1000
        seccompProfile:
          type: RuntimeDefault
      {{- if gt (int .replicas) 1 }}
      affinity:
        # Two replicas on one node would fail over together.
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 100
              podAffinityTerm:
                topologyKey: kubernetes.io/hostname
                labelSelector:
                  matchLabels:
                    {{- toYaml $selector | nindent 20 }}
      {{- end }}
      containers:
        - name: {{ .service }}
          image: {{ include "flotilla.image" $root }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          command: ["node", "services/{{ .service }}/dist/main.js"]
          envFrom:
            - configMapRef:
                name: {{ .name }}-config
          env:
            {{- include "flotilla.secretEnv" (dict "root" $root "env" "NATS_URL" "key" "NATS_URL") | nindent 12 }}
            {{- include "flotilla.secretEnv" (dict "root" $root "env" "NATS_USER" "key" (printf "nats-user-%s" (.natsUser | default .service)) "optional" true) | nindent 12 }}
            {{- include "flotilla.secretEnv" (dict "root" $root "env" "NATS_PASSWORD" "key" (printf "nats-password-%s" (.natsUser | default .service)) "optional" true) | nindent 12 }}
            {{- include "flotilla.secretEnv" (dict "root" $root "env" "NATS_TOKEN" "key" "NATS_TOKEN" "optional" true) | nindent 12 }}
            {{- include "flotilla.secretEnv" (dict "root" $root "env" "REDIS_URL" "key" "REDIS_URL") | nindent 12 }}
            {{- include "flotilla.secretEnv" (dict "root" $root "env" "REDIS_PASSWORD" "key" "REDIS_PASSWORD" "optional" true) | nindent 12 }}
            {{- include "flotilla.secretEnv" (dict "root" $root "env" "NATS_REPLICAS" "key" "NATS_REPLICAS" "optional" true) | nindent 12 }}
            {{- include "flotilla.secretEnv" (dict "root" $root "env" "NATS_TIMEOUT_MS" "key" "NATS_TIMEOUT_MS" "optional" true) | nindent 12 }}
            {{- include "flotilla.secretEnv" (dict "root" $root "env" "REDIS_SENTINELS" "key" "REDIS_SENTINELS" "optional" true) | nindent 12 }}
            {{- include "flotilla.secretEnv" (dict "root" $root "env" "REDIS_SENTINEL_NAME" "key" "REDIS_SENTINEL_NAME" "optional" true) | nindent 12 }}
            {{- include "flotilla.secretEnv" (dict "root" $root "env" "REDIS_SENTINEL_PASSWORD" "key" "REDIS_SENTINEL_PASSWORD" "optional" true) | nindent 12 }}
            {{- with and .apiServerToken (include "flotilla.apiServerEnv" $root) }}
            {{- . | nindent 12 }}
            {{- end }}
          ports:
            - name: metrics
              containerPort: {{ $port }}
              protocol: TCP
            {{- if .apiPorts }}
            - name: api
              containerPort: {{ $apiPort }}
              protocol: TCP
            {{- end }}
          # 240 s to first answer /healthz (kubeadm's budget for its control plane): a node process loads its
          # modules in about 2 CPU-seconds, which a busy node under the CPU limit stretches past a minute
          startupProbe:
            httpGet:
              path: /healthz
              port: metrics
            periodSeconds: 2
            timeoutSeconds: 3
            failureThreshold: 120
          livenessProbe:
            httpGet:
              path: /healthz
              port: metrics
            periodSeconds: 10
            timeoutSeconds: 3
            failureThreshold: 3
          readinessProbe:
            httpGet:
              path: /readyz
              port: metrics
            periodSeconds: 5
            timeoutSeconds: 3
            failureThreshold: 2
          resources:
            {{- toYaml .resources | nindent 12 }}
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            runAsNonRoot: true
            capabilities:
              drop: ["ALL"]
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- with .volumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: 64Mi
        {{- with .volumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
{{- if gt (int .replicas) 1 }}
---
# Keeps one replica running through voluntary disruptions such as node drains.
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ .name }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- $labels | nindent 4 }}
spec:
  minAvailable: 1
  selector:
    matchLabels:
      {{- toYaml $selector | nindent 6 }}
{{- end }}
{{- end }}
