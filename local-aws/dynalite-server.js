#!/usr/bin/env node
'use strict';
// DynamoDB for tests: dynalite (in memory) on 127.0.0.1 and a free port. Prints the port as the first line
// of stdout, then serves until its stdin closes, so that it dies with the JVM that started it (the JVM
// holds the other end of the pipe; when that process ends, for whatever reason, the pipe closes).
//
// Tables become ACTIVE at once (dynalite's default keeps them CREATING for 500 ms).

const dynalite = require('dynalite');

const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
server.on('error', (err) => {
  process.stderr.write(`dynalite: ${err.stack || err}\n`);
  process.exit(1);
});

process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
