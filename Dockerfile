# rtcap as a container image (for `rtcap k8s`): the compiled CLI, its runtime dependencies,
# and `rtcap` on PATH (the merge Job runs it from a shell). The build context is what
# .dockerignore leaves: the sources, never the host's node_modules, dist/ or reports/
# (test/container/image.test.ts checks the list). Not built in rtcap's own CI: that machine
# has no Docker engine (docs/DISTRIBUTED.md says what was and was not exercised).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/profiles ./profiles
RUN ln -s /app/bin/rtcap.js /usr/local/bin/rtcap && chmod +x /app/bin/rtcap.js \
  && mkdir -p /app/reports && chown node:node /app/reports
# Not root: the image's own `node` user (uid 1000). The code stays root-owned and read-only
# to it; runs write into /app/reports (or the results volume rtcap k8s mounts).
USER node
ENTRYPOINT ["node", "/app/bin/rtcap.js"]
