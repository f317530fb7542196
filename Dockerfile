# syntax=docker/dockerfile:1
# The sandbox as an image: `docker build -t api-sandbox .`, then `docker run -p 4010:4010 api-sandbox` (memory only),
# or the compose file (PostgreSQL, two replicas, a proxy). Health: /healthz (alive), /readyz (store ready).

# Build stage: the repository, installed from its lockfile, packs the sandbox's tarball (bundled JavaScript, the
# contract and fixtures it reads, its migrations).
FROM node:20.20.2-bookworm-slim AS build
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund --ignore-scripts \
 && npm pack -w server --pack-destination /pkg

# Run stage: only the packed package and its production dependencies, run as the image's unprivileged `node` user.
FROM node:20.20.2-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4010
COPY --from=build /pkg/ /tmp/pkg/
RUN npm install -g --omit=dev --no-audit --no-fund /tmp/pkg/*.tgz && rm -rf /tmp/pkg /root/.npm
USER node
WORKDIR /home/node
EXPOSE 4010
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["api-sandbox"]
CMD ["start"]
