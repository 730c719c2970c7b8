#!/usr/bin/env node
'use strict';
// Runs `npm ci` in this folder unless node_modules already holds exactly what package-lock.json pins
// (every package's installed version equals the locked one), so that a rebuild does not reinstall.
// Called by the testkit module's build (exec-maven-plugin) before its tests.

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

function upToDate() {
  const lock = JSON.parse(fs.readFileSync(path.join(__dirname, 'package-lock.json'), 'utf8'));
  const packages = lock.packages || {};
  for (const [where, locked] of Object.entries(packages)) {
    if (where === '' || locked.optional || locked.link) continue;
    const manifest = path.join(__dirname, where, 'package.json');
    if (!fs.existsSync(manifest)) return false;
    if (JSON.parse(fs.readFileSync(manifest, 'utf8')).version !== locked.version) return false;
  }
  return true;
}

if (upToDate()) {
  console.log('local-aws: node_modules matches package-lock.json');
  process.exit(0);
}
console.log('local-aws: npm ci');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const result = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: __dirname, stdio: 'inherit' });
if (result.error) {
  console.error(`local-aws: cannot run npm: ${result.error.message}`);
  process.exit(1);
}
process.exit(result.status === null ? 1 : result.status);
