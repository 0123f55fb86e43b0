# The service image, used by docker-compose.yml with an external Neo4j (NEO4J_URI set).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm ci applies these to the dependencies it installs (patches/README.md).
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY cypher ./cypher
COPY schema ./schema
# The data folder (mail outbox, uploads) must belong to the user the service runs as: a fresh named
# volume copies this folder's owner, and a root-owned one made every email code fail with EACCES.
RUN mkdir -p /data && chown node:node /data
ENV SKEIN_DATA_DIR=/data LOG_FORMAT=json
USER node
EXPOSE 8080
# The slim image has no curl; Node's fetch asks /readyz (Neo4j answers) instead.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=6 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/start.js"]
