# One image for the three roles; docker-compose.yml picks the command (api, web or worker).
# Node 24, the LTS line .ci/run tests on: Node 20's support ended on 2026-04-30.
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
COPY patches ./patches
# Install scripts stay off; the one fix we carry for a dependency (patches/) is applied explicitly.
RUN npm ci --omit=dev --ignore-scripts && npx patch-package
COPY core ./core
COPY application ./application
COPY api ./api
COPY web ./web
COPY workflows ./workflows
COPY activities ./activities
COPY worker ./worker
COPY scripts ./scripts
USER node
CMD ["node", "--import", "tsx", "api/main.ts"]
