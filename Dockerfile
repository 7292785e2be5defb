# API and indexer image (production runtime: Node 24 LTS).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# the typed client is a workspace package: npm needs its manifest to install
COPY client/package.json client/
RUN npm install --no-fund --no-audit
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app /app
# the match jobs' files (MATCH_JOBS_DIR): a volume the API and the worker share; made here so a
# new named volume takes the node user's ownership
RUN mkdir -p /var/lib/corpsearch/match-jobs && chown -R node:node /var/lib/corpsearch
ENV MATCH_JOBS_DIR=/var/lib/corpsearch/match-jobs
USER node
EXPOSE 8080
CMD ["node", "dist/src/main.js"]
