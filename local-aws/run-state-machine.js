#!/usr/bin/env node
'use strict';
// Runs one execution of an Amazon States Language definition with aws-local-stepfunctions, its Task states
// invoking Lambda functions at a local endpoint that speaks the Lambda Invoke API.
//
// Usage: node run-state-machine.js --definition <file> --lambda-endpoint <url>
//                                  [--input-file <file>] (default: stdin) [--retry-interval-ms <n>]
//                                  [--execution-name <name>]
// Prints one JSON line on stdout:
//   {"status": "SUCCEEDED"|"FAILED"|"TIMED_OUT", "output": <JSON value or null>, "error": ..., "cause": ...,
//    "states": [<names of the top-level states entered, in order; states inside Map iterations left out>]}
// Exit code 0 when the execution ran (whatever its outcome), 1 when it could not start (bad arguments, a
// definition the library rejects); the reason goes to stderr.

// aws-local-stepfunctions 3 uses Promise.withResolvers (Node 22); Node 20 lacks it.
if (typeof Promise.withResolvers !== 'function') {
  Promise.withResolvers = function withResolvers() {
    let resolve;
    let reject;
    const promise = new this((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i];
    if (!key.startsWith('--') || i + 1 >= argv.length) {
      throw new Error(`unexpected argument: ${key}`);
    }
    args[key.slice(2)] = argv[++i];
  }
  return args;
}

function fail(message) {
  process.stderr.write(`run-state-machine: ${message}\n`);
  process.exit(1);
}

let args;
try {
  args = parseArgs(process.argv.slice(2));
} catch (err) {
  fail(err.message);
}
if (!args.definition) fail('--definition is required');
if (!args['lambda-endpoint']) fail('--lambda-endpoint is required');

// The AWS SDK for JavaScript reads the endpoint of each service from AWS_ENDPOINT_URL_<SERVICE> when a client
// is created; aws-local-stepfunctions creates a Lambda client per Task state, after this line.
process.env.AWS_ENDPOINT_URL_LAMBDA = args['lambda-endpoint'];
delete process.env.AWS_ENDPOINT_URL;
delete process.env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS;
const REGION = 'us-east-1';
process.env.AWS_REGION = REGION;

const { StateMachine, ExecutionError, ExecutionTimeoutError } = require('aws-local-stepfunctions');

// Real Step Functions reports a Lambda function error as Error = the payload's errorType and Cause = the
// payload itself (the JSON text {"errorMessage", "errorType", "stackTrace"}), in Catch outputs and in the
// execution's failure alike. aws-local-stepfunctions 3.0.0 makes Cause "<errorType>: <errorMessage>".
// Raising the error from the Lambda client itself, with the payload as message, gives the real shape.
const lambdaSdk = require(
  require.resolve('@aws-sdk/client-lambda', {
    paths: [path.dirname(require.resolve('aws-local-stepfunctions'))],
  })
);
const originalSend = lambdaSdk.LambdaClient.prototype.send;
lambdaSdk.LambdaClient.prototype.send = async function send(command, ...rest) {
  const response = await originalSend.call(this, command, ...rest);
  if (command instanceof lambdaSdk.InvokeCommand && response.FunctionError) {
    const payload = response.Payload ? Buffer.from(response.Payload).toString('utf8') : '';
    let errorType;
    try {
      errorType = JSON.parse(payload).errorType;
    } catch (ignored) {
      errorType = undefined;
    }
    const error = new Error(payload);
    error.name = typeof errorType === 'string' && errorType ? errorType : 'Lambda.Unknown';
    throw error;
  }
  return response;
};

// Names of all states with a Retry field, nested Map/Parallel states included (for --retry-interval-ms).
function statesWithRetry(definition, names = new Set()) {
  for (const [name, state] of Object.entries(definition.States || {})) {
    if (Array.isArray(state.Retry)) names.add(name);
    if (state.Iterator) statesWithRetry(state.Iterator, names);
    if (state.ItemProcessor) statesWithRetry(state.ItemProcessor, names);
    for (const branch of state.Branches || []) statesWithRetry(branch, names);
  }
  return names;
}

function print(result) {
  process.stdout.write(JSON.stringify(result) + '\n');
}

async function main() {
  const definition = JSON.parse(fs.readFileSync(args.definition, 'utf8'));
  const inputText = args['input-file'] ? fs.readFileSync(args['input-file'], 'utf8') : fs.readFileSync(0, 'utf8');
  const input = inputText.trim() === '' ? {} : JSON.parse(inputText);

  let stateMachine;
  try {
    stateMachine = new StateMachine(definition, {
      awsConfig: {
        region: REGION,
        credentials: { accessKeys: { accessKeyId: 'testkit', secretAccessKey: 'testkit' } },
      },
    });
  } catch (err) {
    fail(`definition rejected: ${err.message}`);
  }

  const runOptions = {};
  if (args['retry-interval-ms'] !== undefined) {
    const ms = Number(args['retry-interval-ms']);
    const overrides = {};
    for (const name of statesWithRetry(definition)) overrides[name] = ms;
    runOptions.overrides = { retryIntervalOverrides: overrides };
  }
  const executionName = args['execution-name'] || crypto.randomUUID();
  const stateMachineName = path.basename(args.definition).replace(/\.[^.]*$/, '') || 'local';
  runOptions.context = {
    Execution: {
      Id: `arn:aws:states:${REGION}:123456789012:execution:${stateMachineName}:${executionName}`,
      Name: executionName,
      RoleArn: `arn:aws:iam::123456789012:role/${stateMachineName}`,
    },
    StateMachine: {
      Id: `arn:aws:states:${REGION}:123456789012:stateMachine:${stateMachineName}`,
      Name: stateMachineName,
    },
  };

  const execution = stateMachine.run(input, runOptions);
  // The execution's path: events of states inside a Map iteration carry the iteration's index.
  const states = [];
  const collecting = (async () => {
    for await (const event of execution.eventLogs) {
      if (event.type === 'StateEntered' && event.index === undefined) states.push(event.state.name);
    }
  })();
  // The event log closes when the execution ends; do not wait for it longer than that.
  const collected = () => Promise.race([collecting, new Promise((resolve) => setTimeout(resolve, 1000))]);
  try {
    const output = await execution.result;
    await collected();
    print({ status: 'SUCCEEDED', output: output === undefined ? null : output, error: null, cause: null, states });
  } catch (err) {
    await collected();
    if (err instanceof ExecutionTimeoutError) {
      print({ status: 'TIMED_OUT', output: null, error: 'States.Timeout', cause: 'The execution timed out', states });
      return;
    }
    const cause = err instanceof ExecutionError && err.cause ? err.cause : err;
    print({
      status: 'FAILED',
      output: null,
      error: cause.name || 'Error',
      cause: cause.message === undefined ? null : String(cause.message),
      states,
    });
  }
}

main().then(
  () => process.exit(0),
  (err) => fail(err && err.stack ? err.stack : String(err))
);
