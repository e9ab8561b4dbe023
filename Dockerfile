# One image for every Flotilla service. The service is chosen at run time:
#   scripts/image flotilla:local        (docker build with the OCI labels' version, revision and source)
#   docker run flotilla node services/gateway/dist/main.js
# or by the SERVICE build argument / environment variable used by the default command:
#   docker build --build-arg SERVICE=cron-scheduler -t flotilla-cron-scheduler .
# No `# syntax=` line: the builder's own Dockerfile frontend has everything used here (RUN --mount included), and a
# syntax line would make every build fetch the frontend image from Docker Hub, which a machine without a registry
# cannot (scripts/docker-env builds this file with nothing pulled).

# Node's supported LTS line (.nvmrc's major; docs/platform.md): the official node:24-slim, or on a machine without a
# registry scripts/docker-env's, made from the same Node build scripts/up and scripts/test run.
FROM node:24-slim AS base
ENV CI=true \
    PNPM_HOME=/pnpm
ENV PATH=$PNPM_HOME:$PATH
RUN npm i -g pnpm@10.34.9
WORKDIR /app

FROM base AS build
# `pnpm fetch` needs only the lockfile (and the patches it names), so the dependency layer stays cached while sources change.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
COPY patches ./patches
RUN --mount=type=cache,id=pnpm,target=/pnpm/store pnpm fetch
COPY . .
RUN --mount=type=cache,id=pnpm,target=/pnpm/store pnpm install --offline --frozen-lockfile
RUN pnpm run build
# Drop devDependencies (TypeScript, vitest, Biome, testkit) from the runtime image; every package declares what it
# imports. A fresh install: `pnpm install --prod` over the full one unlinks them but leaves their files in
# node_modules/.pnpm (about 200 MB of the image).
RUN find . -name node_modules -type d -prune -exec rm -rf {} +
RUN --mount=type=cache,id=pnpm,target=/pnpm/store \
    pnpm install --offline --frozen-lockfile --prod
# What runs, gathered in /out: each workspace package's manifest, its build and its production node_modules (pnpm's
# links into the root's), the dashboard's page, the CLI's entry and the examples the compose job applies. No sources,
# tests, tsconfig or build info reach the runtime image.
RUN mkdir /out && cp -a package.json node_modules examples /out/ && \
    for d in packages/* services/*; do \
      mkdir -p "/out/$d" && cp -a "$d/package.json" "$d/dist" "/out/$d/" && rm -f "/out/$d/dist/.tsbuildinfo"; \
      for extra in node_modules static bin; do if [ -e "$d/$extra" ]; then cp -a "$d/$extra" "/out/$d/"; fi; done; \
    done

FROM node:24-slim AS runtime
# The young-generation size of packages/launcher's SERVICE_NODE_FLAGS (resident memory; see there).
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=4 \
    HTTP_HOST=0.0.0.0 \
    HTTP_PORT=8080
WORKDIR /app
# Root-owned and read-only to the service user: the code never changes at run time.
COPY --from=build /out /app
ARG SERVICE=gateway
ENV SERVICE=${SERVICE}
# Numeric so that Kubernetes' runAsNonRoot can verify it (the image's "node" user is uid 1000).
USER 1000:1000
EXPOSE 8080 8081
# exec so that node is PID 1 and receives SIGTERM for a clean shutdown.
CMD ["sh", "-c", "exec node services/$SERVICE/dist/main.js"]
# The OCI labels, last so that a new commit rebuilds no layer: scripts/image passes the root package.json's version
# (the chart's appVersion), the commit and the repository's address.
ARG VERSION=unknown
ARG REVISION=unknown
ARG SOURCE=unknown
LABEL org.opencontainers.image.title="flotilla" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}"
