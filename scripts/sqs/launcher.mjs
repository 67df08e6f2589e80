// Starts the fauxqs SQS + SNS emulator on loopback without request logging.
// scripts/brokers.sh copies this file next to the node_modules it installs (in its state dir),
// so the bare "fauxqs" import resolves there. fauxqs's own CLI listens on 0.0.0.0 and logs every
// request, hence this launcher.
import { buildApp } from "fauxqs";

const host = process.env.FAUXQS_BIND_HOST ?? "127.0.0.1";
const port = Number.parseInt(process.env.FAUXQS_PORT ?? "4566", 10);

const app = buildApp({ logger: false });

let closing = false;
async function shutdown(signal) {
  if (closing) return;
  closing = true;
  console.log(`fauxqs: ${signal} received, closing`);
  try {
    await app.close();
  } finally {
    process.exit(0);
  }
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));

try {
  const address = await app.listen({ port, host });
  console.log(`fauxqs: listening on ${address} (pid ${process.pid})`);
} catch (err) {
  console.error(`fauxqs: cannot listen on ${host}:${port}: ${err?.message ?? err}`);
  process.exit(1);
}
