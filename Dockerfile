# The service image, used by docker-compose.yml with an external Neo4j (NEO4J_URI set).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY cypher ./cypher
COPY schema ./schema
USER node
EXPOSE 8080
CMD ["node", "dist/src/start.js"]
