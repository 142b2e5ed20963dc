# syntax=docker/dockerfile:1
# pod-bouncer image: `docker build -t pod-bouncer .`, then `docker run pod-bouncer <serve|work|all|demo|sim>`.
# Three stages so the runtime image carries only what runs: compiled JS, production node_modules,
# the launcher, and the CRD that `demo`'s simulator validates directives with.

# Debian (glibc) rather than Alpine: msgpackr-extract (used by BullMQ) ships prebuilt glibc binaries.
ARG NODE_IMAGE=node:24-bookworm-slim

# --- build: full dependencies, TypeScript checked and bundled into dist/ (scripts/build.mjs) -----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Install scripts are not needed to build (tsc is plain JS; esbuild's binary comes in its platform
# package); skipping them keeps the build hermetic and avoids running third-party code at build time.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs ./scripts/
COPY src ./src
RUN npm run build

# --- deps: production dependencies only ------------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# msgpackr-extract's install script only looks for its prebuilt platform package, which npm installs
# as an optional dependency anyway (and msgpackr falls back to plain JS without it).
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force

# --- runtime ---------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# OCI image annotations; a release build passes the version, commit and build time, e.g.
#   docker build --build-arg VERSION=0.1.0 --build-arg REVISION=$(git rev-parse HEAD) \
#     --build-arg CREATED=$(date -u +%Y-%m-%dT%H:%M:%SZ) --build-arg SOURCE=<repository URL> .
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown
ARG SOURCE=""
# Declared before the first FROM: re-declared to be readable in this stage.
ARG NODE_IMAGE
LABEL org.opencontainers.image.title="pod-bouncer" \
      org.opencontainers.image.description="Restarts Istio-controlled pods in order when mesh certificates rotate." \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.base.name="${NODE_IMAGE}"
ENV NODE_ENV=production
# Node sizes its heap from the machine's memory, not the container's limit, so without a cap a busy
# worker grows well past what it needs before it collects: 1,000 directives x 30 pods in one worker
# (`npm run bench`, section 4) peaked at about 430 MB RSS with no flags and 230-245 MB with these
# heap flags; about 200 MB with them and the arena setting below, on today's bundle.
# A smaller young generation (--max-semi-space-size=4) saved under 10 MB and cost about 20 % more
# CPU. Two malloc arenas instead of glibc's eight per core: about 8 MB less, no CPU cost measured.
# The Helm chart sets its own NODE_OPTIONS (worker.nodeOptions), which replaces this one.
ENV NODE_OPTIONS="--max-semi-space-size=8 --max-old-space-size=256"
ENV MALLOC_ARENA_MAX=2
# A fixed numeric uid/gid so Kubernetes can check runAsNonRoot, and a real passwd entry (with a home)
# so anything that asks for the home directory gets an answer.
RUN groupadd --system --gid 10001 bouncer \
  && useradd --system --uid 10001 --gid bouncer --home-dir /home/bouncer --create-home \
     --shell /usr/sbin/nologin bouncer
WORKDIR /app
# Owned by root and not writable by the app user: the code cannot be changed at run time. The only
# writable place the app needs is the temp directory (the demo writes a kubeconfig there).
COPY package.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
# The simulator finds the CRD relative to the package root (the directory holding package.json).
COPY charts/pod-bouncer/crds ./charts/pod-bouncer/crds

USER 10001:10001
EXPOSE 8080
# No curl in slim images: node itself asks /healthz. Only the HTTP roles (serve, all) listen; a
# `work` container has no listener, so docker-compose.yml disables this check for the worker.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node is PID 1 and receives SIGTERM directly: pod-bouncer drains on it (close-with-grace).
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["all"]
