/**
 * A local stand-in for AWS Lambda's control and invoke API (REST JSON, as AWS documents it) and the few
 * IAM calls lambda:run makes (the Query protocol, XML answers), and CloudWatch Logs' FilterLogEvents,
 * DescribeLogGroups and DeleteLogGroup (the JSON 1.1 protocol, X-Amz-Target Logs_20140328.*), on 127.0.0.1, for the real
 * SDK clients reached through AWS_ENDPOINT_URL. No code runs: an invocation after a configuration
 * change is a cold start, and its log tail (X-Amz-Log-Result, base64) holds START, END and a REPORT line
 * with Init Duration in Lambda's format; later ones are warm. The answer's x-amzn-RequestId is the
 * invocation's request id, and the same lines go to the log group `/aws/lambda/<function>` (made on the
 * first invocation, as Lambda does). Faults are set per call or per function.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ACCOUNT, type CallRecord, type FakeFunction, type FakeLogEvent, type Faults } from './fake-lambda-faults.ts';
export { ACCOUNT, type CallRecord, type FakeFunction, type FakeLogEvent, type Faults } from './fake-lambda-faults.ts';

export class FakeLambda {
  readonly functions = new Map<string, FakeFunction>();
  readonly roles = new Map<string, { arn: string; tags: Record<string, string>; policies: string[] }>();
  readonly calls: CallRecord[] = [];
  /** CloudWatch Logs: log group name → its events */
  readonly logGroups = new Map<string, FakeLogEvent[]>();
  faults: Faults = {};
  private readonly counts = new Map<string, number>();
  /** FilterLogEvents calls per filter pattern (for logsLate) */
  private readonly filterCalls = new Map<string, number>();
  /** CreateFunction calls since the last CreateRole (for roleNotAssumable) */
  private createsSinceRole = Number.POSITIVE_INFINITY;
  private server: Server | undefined;
  url = '';

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => void this.handle(req, Buffer.concat(chunks), res));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** Every counter and record back to a fresh server's. */
  reset(): void {
    this.faults = {};
    this.functions.clear();
    this.roles.clear();
    this.logGroups.clear();
    this.calls.length = 0;
    this.counts.clear();
    this.filterCalls.clear();
    this.createsSinceRole = Number.POSITIVE_INFINITY;
  }

  /** An answer that never ends: its headers, then 1 KB of a JSON string every 10 ms until the client goes. */
  private endless(res: ServerResponse): true {
    res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': randomUUID() });
    res.write('{"body":"');
    const chunk = 'x'.repeat(1024);
    const timer = setInterval(() => res.write(chunk), 10);
    res.on('close', () => clearInterval(timer));
    return true;
  }

  /** A slow-loris answer: its headers, then one byte every 500 ms until the client goes (the socket is never idle long). */
  private trickle(res: ServerResponse): true {
    res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': randomUUID() });
    res.write('{');
    const timer = setInterval(() => res.write(' '), 500);
    res.on('close', () => clearInterval(timer));
    return true;
  }

  /** A flood: its headers, then 64 KB chunks of a JSON string as fast as the client takes them, until it goes. */
  private flooding(res: ServerResponse): true {
    res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': randomUUID() });
    res.write('{"body":"');
    const chunk = Buffer.alloc(65536, 'x');
    let gone = false;
    res.on('close', () => (gone = true));
    const more = () => {
      while (!gone) if (!res.write(chunk)) return void res.once('drain', more);
    };
    more();
    return true;
  }

  /** Initial cold start figures of a function at a memory size: fixed, so a test can check them. */
  static initMs(name: string, memory: number): number {
    const routes = Number(/-(\d+)-(?:plain|validated)-/.exec(name)?.[1] ?? 1);
    return Math.round((150 + routes * 0.5 + (128 / memory) * 200) * 100) / 100;
  }

  private json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): true {
    const text = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(text);
    return true;
  }

  private error(res: ServerResponse, status: number, type: string, message: string): true {
    return this.json(res, status, { Type: 'User', message }, { 'x-amzn-errortype': type });
  }

  private configuration(fn: FakeFunction) {
    return {
      FunctionName: fn.name,
      FunctionArn: fn.arn,
      Runtime: fn.runtime,
      Role: fn.role,
      Handler: fn.handler,
      CodeSize: fn.codeBytes,
      MemorySize: fn.memory,
      Timeout: 30,
      Architectures: fn.architectures,
      Environment: { Variables: fn.env },
      State: fn.state,
      LastUpdateStatus: fn.lastUpdateStatus,
      Version: '$LATEST',
    };
  }

  private matches(list: string[] | undefined, name: string): boolean {
    return (list ?? []).some((prefix) => name.startsWith(prefix));
  }

  private async handle(req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://x');
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    let op = 'Unknown';
    const target = req.headers['x-amz-target'];
    // CloudWatch Logs on any path: a test may give its endpoint a path of its own to tell its calls apart
    if (req.method === 'POST' && typeof target === 'string' && target.startsWith('Logs_20140328.')) {
      op = `logs:${target.slice('Logs_20140328.'.length)}`;
    } else if (req.method === 'POST' && url.pathname === '/') {
      op = `iam:${new URLSearchParams(body.toString('utf8')).get('Action') ?? ''}`;
    } else if (parts[0] === '2015-03-31' && parts[1] === 'functions') {
      if (parts.length === 2) op = req.method === 'POST' ? 'CreateFunction' : 'ListFunctions';
      else if (parts[3] === 'invocations') op = 'Invoke';
      else if (parts[3] === 'configuration') op = req.method === 'PUT' ? 'UpdateFunctionConfiguration' : 'GetFunctionConfiguration';
      else if (parts.length === 3) op = req.method === 'DELETE' ? 'DeleteFunction' : 'GetFunction';
    } else if (parts[0] === '2017-03-31' && parts[1] === 'tags') {
      op = req.method === 'GET' ? 'ListTags' : 'TagResource';
    }
    this.calls.push({ op, text: `${JSON.stringify(req.headers)}\n${body.toString('utf8')}`, path: url.pathname });
    const seen = (this.counts.get(op) ?? 0) + 1;
    this.counts.set(op, seen);
    if (seen <= (this.faults.throttle?.[op] ?? 0)) return this.error(res, 429, 'TooManyRequestsException', 'Rate exceeded');
    if (this.faults.deny?.includes(op)) {
      return this.error(
        res,
        403,
        'AccessDeniedException',
        `User: arn:aws:iam::${ACCOUNT}:user/test is not authorized to perform: lambda:${op}`,
      );
    }
    if (this.faults.slowLoris?.includes(op)) return this.trickle(res);
    if (this.faults.flood?.includes(op)) return this.flooding(res);
    if (op === 'logs:FilterLogEvents' && this.faults.logsEndless) return this.endless(res);
    if (op.startsWith('logs:')) return this.logs(op.slice(5), body, res);
    if (op.startsWith('iam:')) return this.iam(op.slice(4), new URLSearchParams(body.toString('utf8')), res);
    const name = parts[2] ?? '';
    const fn = this.functions.get(name);
    switch (op) {
      case 'CreateFunction': {
        const input = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
        const fname = String(input.FunctionName);
        if (++this.createsSinceRole <= (this.faults.roleNotAssumable ?? 0)) {
          return this.error(res, 400, 'InvalidParameterValueException', 'The role defined for the function cannot be assumed by Lambda.');
        }
        if (this.functions.has(fname)) return this.error(res, 409, 'ResourceConflictException', `Function already exist: ${fname}`);
        const zip = (input.Code as { ZipFile?: string }).ZipFile ?? '';
        const created: FakeFunction = {
          name: fname,
          arn: `arn:aws:lambda:us-east-1:${ACCOUNT}:function:${fname}`,
          runtime: String(input.Runtime),
          role: String(input.Role),
          handler: String(input.Handler),
          memory: Number(input.MemorySize ?? 128),
          architectures: (input.Architectures as string[] | undefined) ?? ['x86_64'],
          env: (input.Environment as { Variables?: Record<string, string> } | undefined)?.Variables ?? {},
          tags: (input.Tags as Record<string, string> | undefined) ?? {},
          state: 'Pending',
          lastUpdateStatus: 'Successful',
          changed: true,
          codeBytes: Buffer.from(zip, 'base64').length,
        };
        this.functions.set(fname, created);
        return this.json(res, 201, this.configuration(created));
      }
      case 'ListFunctions': {
        const all = [...this.functions.values()];
        const marker = Number(url.searchParams.get('Marker') ?? 0);
        // listForever: the first page again and again, each time with a new marker
        const forever = this.faults.listForever === 'ListFunctions';
        const start = forever ? 0 : marker;
        const size = Number(url.searchParams.get('MaxItems') ?? 50);
        const page = all.slice(start, start + size);
        return this.json(res, 200, {
          Functions: page.map((f) => this.configuration(f)),
          ...(forever ? { NextMarker: String(marker + size) } : start + size < all.length ? { NextMarker: String(start + size) } : {}),
        });
      }
      case 'ListTags': {
        const arn = parts.slice(2).join('/');
        const tagged = [...this.functions.values()].find((f) => f.arn === arn);
        if (!tagged) return this.error(res, 404, 'ResourceNotFoundException', `Function not found: ${arn}`);
        return this.json(res, 200, { Tags: tagged.tags });
      }
    }
    if (!fn) return this.error(res, 404, 'ResourceNotFoundException', `Function not found: ${name}`);
    switch (op) {
      case 'GetFunction':
      case 'GetFunctionConfiguration': {
        // a function becomes Active, and an update Successful, on the first look after it (unless stuck)
        const answer = this.configuration(fn);
        if (!this.matches(this.faults.pending, fn.name)) {
          fn.state = 'Active';
          fn.lastUpdateStatus = 'Successful';
        }
        return this.json(
          res,
          200,
          op === 'GetFunction' ? { Configuration: answer, Code: { RepositoryType: 'S3' }, Tags: fn.tags } : answer,
        );
      }
      case 'UpdateFunctionConfiguration': {
        if (fn.state !== 'Active')
          return this.error(
            res,
            409,
            'ResourceConflictException',
            'The operation cannot be performed at this time. The function is currently in the following state: Pending',
          );
        const input = JSON.parse(body.toString('utf8')) as { MemorySize?: number; Environment?: { Variables?: Record<string, string> } };
        if (input.MemorySize) fn.memory = input.MemorySize;
        if (input.Environment?.Variables) fn.env = input.Environment.Variables;
        fn.lastUpdateStatus = 'InProgress';
        fn.changed = true;
        return this.json(res, 200, this.configuration(fn));
      }
      case 'DeleteFunction': {
        if (this.faults.deleteFails) return this.error(res, 409, 'ResourceConflictException', 'deletion refused by the test');
        this.functions.delete(fn.name);
        res.writeHead(204);
        res.end();
        return true;
      }
      case 'Invoke':
        return this.invoke(fn, res);
    }
    return this.error(res, 400, 'InvalidRequestContentException', `not implemented: ${req.method} ${url.pathname}`);
  }

  private async invoke(fn: FakeFunction, res: ServerResponse): Promise<boolean> {
    if (fn.state !== 'Active' || fn.lastUpdateStatus !== 'Successful') {
      return this.error(res, 409, 'ResourceConflictException', 'The operation cannot be performed at this time. An update is in progress');
    }
    if (this.faults.invokeDelayMs) await new Promise((resolve) => setTimeout(resolve, this.faults.invokeDelayMs));
    if (this.matches(this.faults.endlessInvoke, fn.name)) return this.endless(res);
    const id = randomUUID();
    const cold = fn.changed;
    fn.changed = false;
    const init = FakeLambda.initMs(fn.name, fn.memory);
    let status = '';
    let duration = 3.21;
    let error: string | undefined;
    const lines = [`START RequestId: ${id} Version: $LATEST`];
    if (this.matches(this.faults.initError, fn.name)) {
      status = '\tStatus: error\tError Type: Runtime.ExitError';
      duration = 812.5;
      error = 'Unhandled';
      fn.changed = true;
      lines.push(`${new Date().toISOString()}\t${id}\tERROR\tUncaught Exception\t{"errorType":"Error","errorMessage":"boom"}`);
    } else if (this.matches(this.faults.invokeTimeout, fn.name)) {
      status = '\tStatus: timeout';
      duration = 30000;
      error = 'Unhandled';
      fn.changed = true;
      lines.push(`${new Date().toISOString()} ${id} Task timed out after 30.00 seconds`);
    }
    const chatty = this.matches(this.faults.tailWithoutReport, fn.name);
    if (chatty)
      for (let i = 0; i < 60; i++) lines.push(`${new Date().toISOString()}\t${id}\tINFO\tchatty handler line ${i} ${'x'.repeat(60)}`);
    lines.push(`END RequestId: ${id}`);
    const initField = cold || error ? `\tInit Duration: ${init} ms` : '';
    const report =
      `REPORT RequestId: ${id}\tDuration: ${duration} ms\tBilled Duration: ${Math.ceil(duration + (cold ? init : 0))} ms\t` +
      `Memory Size: ${fn.memory} MB\tMax Memory Used: 61 MB${initField}${status}\t`;
    const stream = `${new Date().toISOString().slice(0, 10).replaceAll('-', '/')}/[$LATEST]${id.replaceAll('-', '')}`;
    const group = `/aws/lambda/${fn.name}`;
    const events = this.logGroups.get(group) ?? [];
    this.logGroups.set(group, events);
    const logged = this.matches(this.faults.logsWithoutReport, fn.name) ? lines : [...lines, report];
    for (const message of logged) {
      events.push({
        logStreamName: stream,
        timestamp: Date.now(),
        ingestionTime: Date.now(),
        message: `${message}\n`,
        eventId: randomUUID(),
      });
    }
    // the tail: the last 4 KB of the log, and without the REPORT line in that mode
    let tail = `${(chatty ? lines : [...lines, report]).join('\n')}\n`;
    if (Buffer.byteLength(tail) > 4096) tail = Buffer.from(tail).subarray(-4096).toString('utf8');
    const headers: Record<string, string> = {
      'x-amz-log-result': this.matches(this.faults.hugeLogResult, fn.name)
        ? Buffer.alloc(768 * 1024, 'x').toString('base64')
        : Buffer.from(tail).toString('base64'),
      'x-amz-executed-version': '$LATEST',
    };
    if (!this.faults.noRequestIdHeader) headers['x-amzn-requestid'] = id;
    if (error) headers['x-amz-function-error'] = error;
    return this.json(
      res,
      200,
      error ? { errorType: 'Runtime.ExitError', errorMessage: 'failed' } : { statusCode: 200, body: '{"hello":"coldstart"}' },
      headers,
    );
  }

  /** CloudWatch Logs' FilterLogEvents (an exact phrase in double quotes, as AWS documents it), DescribeLogGroups and DeleteLogGroup. */
  private logs(action: string, body: Buffer, res: ServerResponse): true {
    const fail = (status: number, type: string, message: string): true => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-errortype': type });
      res.end(JSON.stringify({ __type: type, message }));
      return true;
    };
    const ok = (answer: unknown): true => {
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(answer));
      return true;
    };
    const input = JSON.parse(body.toString('utf8') || '{}') as {
      logGroupName?: string;
      filterPattern?: string;
      startTime?: number;
      limit?: number;
      nextToken?: string;
      logGroupNamePrefix?: string;
    };
    const group = input.logGroupName ?? '';
    const events = this.logGroups.get(group);
    switch (action) {
      case 'DescribeLogGroups': {
        // ASCII-sorted by name, at most 50 a page (AWS refuses a larger limit), nextToken to the next page
        const limit = input.limit ?? 50;
        if (limit < 1 || limit > 50) return fail(400, 'InvalidParameterException', `limit ${limit} is not 1 to 50`);
        const names = [...this.logGroups.keys()].filter((n) => n.startsWith(input.logGroupNamePrefix ?? '')).sort();
        const start = Number(input.nextToken ?? 0);
        const arn = (n: string) => `arn:aws:logs:us-east-1:${ACCOUNT}:log-group:${n}`;
        return ok({
          logGroups: names.slice(start, start + limit).map((n) => ({
            logGroupName: n,
            creationTime: 1_800_000_000_000,
            metricFilterCount: 0,
            arn: `${arn(n)}:*`,
            logGroupArn: arn(n),
            storedBytes: 0,
          })),
          ...(start + limit < names.length ? { nextToken: String(start + limit) } : {}),
        });
      }
      case 'DeleteLogGroup':
        if (this.faults.deleteLogGroupFails) return fail(400, 'OperationAbortedException', 'deletion refused by the test');
        if (!events) return fail(400, 'ResourceNotFoundException', 'The specified log group does not exist.');
        this.logGroups.delete(group);
        return ok({});
      case 'FilterLogEvents': {
        if (!events) return fail(400, 'ResourceNotFoundException', 'The specified log group does not exist.');
        const pattern = input.filterPattern ?? '';
        const phrase = /^"([^"]+)"$/.exec(pattern)?.[1];
        if (phrase === undefined)
          return fail(400, 'InvalidParameterException', `this server knows only "exact phrase" patterns: ${pattern}`);
        const seen = (this.filterCalls.get(pattern) ?? 0) + 1;
        this.filterCalls.set(pattern, seen);
        if (seen <= (this.faults.logsLate ?? 0)) return ok({ events: [], searchedLogStreams: [] });
        const matching = events.filter((e) => e.message.includes(phrase) && e.timestamp >= (input.startTime ?? 0));
        const start = Number(input.nextToken ?? 0);
        const limit = Math.min(input.limit ?? 10_000, 10_000);
        const page = matching.slice(start, start + limit);
        return ok({
          events: page,
          searchedLogStreams: [],
          ...(start + limit < matching.length ? { nextToken: String(start + limit) } : {}),
        });
      }
    }
    return fail(400, 'InvalidOperationException', `not implemented: ${action}`);
  }

  private iam(action: string, params: URLSearchParams, res: ServerResponse): boolean {
    const xml = (inner: string): true => {
      res.writeHead(200, { 'content-type': 'text/xml' });
      res.end(
        `<${action}Response xmlns="https://iam.amazonaws.com/doc/2010-05-08/">${inner}` +
          `<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></${action}Response>`,
      );
      return true;
    };
    const name = params.get('RoleName') ?? '';
    const roleXml = (n: string, arn: string) =>
      `<Role><Path>/</Path><RoleName>${n}</RoleName><RoleId>AROAFAKE${n.length}</RoleId><Arn>${arn}</Arn>` +
      '<CreateDate>2026-11-27T00:00:00Z</CreateDate></Role>';
    switch (action) {
      case 'CreateRole': {
        const tags: Record<string, string> = {};
        for (let i = 1; params.has(`Tags.member.${i}.Key`); i++)
          tags[params.get(`Tags.member.${i}.Key`)!] = params.get(`Tags.member.${i}.Value`)!;
        const arn = `arn:aws:iam::${ACCOUNT}:role/${name}`;
        this.roles.set(name, { arn, tags, policies: [] });
        this.createsSinceRole = 0;
        return xml(`<CreateRoleResult>${roleXml(name, arn)}</CreateRoleResult>`);
      }
      case 'AttachRolePolicy':
        this.roles.get(name)?.policies.push(params.get('PolicyArn') ?? '');
        return xml('');
      case 'DetachRolePolicy': {
        const role = this.roles.get(name);
        if (role) role.policies = role.policies.filter((p) => p !== params.get('PolicyArn'));
        return xml('');
      }
      case 'DeleteRole':
        this.roles.delete(name);
        return xml('');
      case 'ListRoles': {
        const members = [...this.roles].map(([n, r]) => `<member>${roleXml(n, r.arn).replace(/^<Role>|<\/Role>$/g, '')}</member>`);
        const more =
          this.faults.listForever === 'ListRoles'
            ? '<IsTruncated>true</IsTruncated><Marker>again</Marker>'
            : '<IsTruncated>false</IsTruncated>';
        return xml(`<ListRolesResult>${more}<Roles>${members.join('')}</Roles></ListRolesResult>`);
      }
      case 'ListRoleTags': {
        const tags = this.roles.get(name)?.tags ?? {};
        return xml(
          `<ListRoleTagsResult><IsTruncated>false</IsTruncated><Tags>${Object.entries(tags)
            .map(([k, v]) => `<member><Key>${k}</Key><Value>${v}</Value></member>`)
            .join('')}</Tags></ListRoleTagsResult>`,
        );
      }
    }
    res.writeHead(400, { 'content-type': 'text/xml' });
    res.end(`<ErrorResponse><Error><Type>Sender</Type><Code>InvalidAction</Code><Message>${action}</Message></Error></ErrorResponse>`);
    return true;
  }
}
