// A hostile Node bot (tests/test_native.py): at its first decision it tries child processes,
// worker threads, the network and the machine's files, and logs "ESCAPED <what>" for anything
// that should have been refused and was not; then it plays the first legal action.
"use strict";

function escaped(what) {
  process.stderr.write(`ESCAPED ${what}\n`);
}

function tryIt(what, fn) {
  try {
    const r = fn();
    if (r !== false) escaped(what);
  } catch (e) {
    process.stderr.write(`refused ${what}: ${e.code || e.message}\n`);
  }
}

function attack() {
  const cp = require("child_process");
  tryIt("spawnSync", () => cp.spawnSync("/usr/bin/node", ["-e", "1"]).status === 0);
  tryIt("execSync", () => cp.execSync("echo hi").length > 0);
  tryIt("fork", () => cp.fork("/bot/bot.js").pid > 0);
  const fs = require("fs");
  for (const p of ["/etc/passwd", "/proc/meminfo", "/usr/bin/gcc", "/var/cache/euchre-arena"]) {
    tryIt(`read ${p}`, () => fs.readdirSync(p).length >= 0 || fs.readFileSync(p).length >= 0);
  }
  tryIt("write a file", () => fs.writeFileSync("/bot/x", "x") === undefined);
  const net = require("net");
  const s = net.connect(80, "1.1.1.1");
  s.on("connect", () => escaped("tcp connect"));
  s.on("error", (e) => process.stderr.write(`refused tcp: ${e.code}\n`));
  const dgram = require("dgram");
  tryIt("udp", () => {
    const u = dgram.createSocket("udp4");
    u.on("error", (e) => process.stderr.write(`refused udp: ${e.code}\n`));
    u.send("x", 53, "8.8.8.8", (err) => (err ? null : escaped("udp send")));
    return false;
  });
  tryIt("worker thread", () => {
    const { Worker } = require("worker_threads");
    const w = new Worker("1", { eval: true });
    w.on("error", (e) => process.stderr.write(`worker error: ${e.message}\n`));
    return false; // threads are allowed: the pids cgroup bounds them
  });
}

let attacked = false;
let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf("\n")) >= 0) {
    const msg = JSON.parse(buffer.slice(0, nl));
    buffer = buffer.slice(nl + 1);
    if (msg.type === "hello") {
      process.stdout.write(JSON.stringify({ protocol: 1, name: "js-attack" }) + "\n");
    } else if (msg.type === "act") {
      if (!attacked) {
        attacked = true;
        attack();
      }
      process.stdout.write(JSON.stringify({ id: msg.id, action: msg.obs.legal[0] }) + "\n");
    }
  }
});
