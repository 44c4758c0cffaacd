// BullMQ's counterpart of Redq's e2e scenario: 2 producers adding batches of 1,000 no-op jobs while a worker of
// concurrency 8 runs them, completed jobs removed; jobs/s from the first add to the last completion, after a warm-up
// round of 50,000; also the CPU time per job of Redis (INFO cpu) and of this process, as the harness reports its
// cpuMicrosPerJob. Usage: node e2e.mjs <redis port> [jobs]
import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
const port = Number(process.argv[2]); const N = Number(process.argv[3] || 100000);
const connection = { host: '127.0.0.1', port };
async function round(n, name) {
  const queue = new Queue(name, { connection });
  let done = 0; let resolveDone;
  const finished = new Promise((r) => (resolveDone = r));
  const worker = new Worker(name, async () => {}, { connection, concurrency: 8, autorun: false });
  worker.on('completed', () => { if (++done === n) resolveDone(); });
  const start = process.hrtime.bigint();
  worker.run();
  const producers = [0, 1].map(async (p) => {
    for (let i = p * 1000; i < n; i += 2000) {
      const size = Math.min(1000, n - i);
      await queue.addBulk(Array.from({ length: size }, (_, k) => ({ name: 'noop', data: { n: i + k }, opts: { removeOnComplete: true } })));
    }
  });
  await Promise.all(producers);
  await finished;
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  await worker.close(); await queue.obliterate({ force: true }); await queue.close();
  return n / secs;
}
const admin = new IORedis(connection);
async function redisCpuSeconds() {
  const info = await admin.info('cpu');
  const field = (name) => Number(info.match(new RegExp(`${name}:([0-9.]+)`))[1]);
  return field('used_cpu_user') + field('used_cpu_sys');
}
await round(Math.min(N, 50000), 'warm');
const redisBefore = await redisCpuSeconds(); const nodeBefore = process.cpuUsage();
const rate = await round(N, 'bench');
const redisMicros = ((await redisCpuSeconds()) - redisBefore) * 1e6 / N;
const nodeUsage = process.cpuUsage(nodeBefore); const nodeMicros = (nodeUsage.user + nodeUsage.system) / N;
console.log(`RESULT bullmq e2e jobsPerSecond=${rate.toFixed(1)} redisCpuMicrosPerJob=${redisMicros.toFixed(2)} `
  + `nodeCpuMicrosPerJob=${nodeMicros.toFixed(2)}`);
process.exit(0);
