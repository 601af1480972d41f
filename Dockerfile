# syntax=docker/dockerfile:1
# Dossier's server: `docker build -t dossier .` then `docker run -p 3000:3000 dossier`.
# See docs/operations.md and examples/compose.yaml.

# ---- build: compile the TypeScript with the dev dependencies (tsc loads no native module)
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# `prepare` would compile before the sources are here: install first, build after.
RUN npm ci --ignore-scripts
COPY tsconfig.json ./
COPY lib ./lib
COPY adapters ./adapters
COPY scripts ./scripts
RUN npm run build

# ---- deps: the production dependencies, the Koa adapter's peers (optional for the library, needed to
# serve), and better-sqlite3's native module built
FROM node:20-bookworm-slim AS deps
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# The peers become dependencies of this copy of package.json, at the ranges it gives them, so that
# --omit=dev keeps them; npm ci still installs exactly what the lockfile pins. The other frameworks an
# application may mount Dossier in stay out: the image serves with Koa.
RUN node -e "const fs = require('fs'); const p = JSON.parse(fs.readFileSync('package.json', 'utf8')); const others = ['express', 'fastify', 'hono', '@hono/node-server']; for (const [name, range] of Object.entries(p.peerDependencies)) { if (others.includes(name)) continue; p.dependencies[name] = range; delete p.devDependencies[name]; } fs.writeFileSync('package.json', JSON.stringify(p, null, 2));" \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm rebuild better-sqlite3 && npm cache clean --force

# ---- runtime: no compiler, no dev dependencies, not root
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DOSSIER_STORE=sqlite:///data/dossier.sqlite
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM lets requests in flight finish (DOSSIER_SHUTDOWN_TIMEOUT_MS, default 10 s); node runs as PID 1 and handles it.
STOPSIGNAL SIGTERM
CMD ["node", "dist/adapters/cli/main.js", "serve"]
