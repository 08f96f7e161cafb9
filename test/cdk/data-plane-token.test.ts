/**
 * The external data plane's bearer token from Secrets Manager: with `dataPlaneUrl` and a token
 * secret, the functions that call the data plane (the compute and storage executors, the sweeper)
 * get the secret's ARN in DATAPLANE_TOKEN_SECRET_ARN and may read that one secret; no function gets
 * a plain token. Bundling is off: this file is about wiring.
 */
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { beforeAll, describe, expect, it } from 'vitest';
import { DATA_PLANE_TOKEN_ACTIONS } from '../../cdk/constructs/data-plane-token';
import { InvalidPropsError } from '../../cdk/constructs/props-validation';
import { sweeperActions } from '../../cdk/constructs/sweeper';
import { DATA_PLANE_TOKEN_SECRET_ARN_CONTEXT, DATA_PLANE_URL_CONTEXT, DdlControlPlaneStack } from '../../cdk/stack';
import { DATAPLANE_TOKEN_SECRET_ARN_ENV, loadConfig } from '../../shared/config';
import { ENV } from '../../shared/definitions';
import { BUNDLING_STACKS, captureError, fakeResolve, identityStatements, logicalId, statementsOfRole, testApp } from './helpers';

const URL = 'https://dataplane.example.com';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ddl/dataplane-token-AbCdEf';

let stack: DdlControlPlaneStack;
let template: Template;

beforeAll(() => {
  // Prepare
  const app = testApp({ [DATA_PLANE_URL_CONTEXT]: URL, [DATA_PLANE_TOKEN_SECRET_ARN_CONTEXT]: SECRET_ARN, [BUNDLING_STACKS]: [] });
  stack = new DdlControlPlaneStack(app, 'DdlControlPlane');
  template = Template.fromStack(stack);
});

/** Every function's environment, by the logical id of its role. */
function environments(): Map<string, Record<string, string>> {
  const byRole = new Map<string, Record<string, string>>();
  for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
    const variables = fn.Properties.Environment.Variables as Record<string, unknown>;
    byRole.set(fakeResolve(fn.Properties.Role).replace(/^getatt:|\.Arn$/g, ''), Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, fakeResolve(v)])));
  }
  return byRole;
}

describe('with context dataPlaneUrl and dataPlaneTokenSecretArn', () => {
  const callers = () => [stack.executors.compute.handler, stack.executors.storage.handler, stack.sweeper.handler];

  it('gives the data plane callers the secret ARN, no function a plain token, and a wiring loadConfig accepts', () => {
    // Act
    const envs = environments();
    const callerRoles = callers().map((f) => logicalId(f.role));

    // Assess
    expect(envs.size).toBe(8); // router, API, authorizer, sweeper, three executors, status-ingest (no reference reporter with an external data plane)
    for (const [role, env] of envs) {
      expect(env).not.toHaveProperty('DATAPLANE_TOKEN');
      expect(env[ENV.dataPlaneUrl]).toBe(URL);
      expect(env[DATAPLANE_TOKEN_SECRET_ARN_ENV]).toBe(callerRoles.includes(role) ? SECRET_ARN : undefined);
      expect(loadConfig({ AWS_REGION: 'eu-west-1', ...env }).dataPlaneTokenSecretArn).toBe(env[DATAPLANE_TOKEN_SECRET_ARN_ENV]);
    }
    expect(stack.dataPlaneTokenSecret?.secretArn).toBe(SECRET_ARN);
  });

  it('lets exactly those functions GetSecretValue that secret, nothing more and nothing else', () => {
    // Act
    const onSecret = identityStatements(template).filter((s) => s.resources.map(fakeResolve).includes(SECRET_ARN));

    // Assess: one statement per caller, in its own policy, GetSecretValue on the one ARN
    expect(onSecret).toHaveLength(3);
    for (const s of onSecret) {
      expect(s.actions).toEqual(['secretsmanager:GetSecretValue']);
      expect(s.resources).toEqual([SECRET_ARN]);
      expect(s.statement.Effect).toBe('Allow');
    }
    for (const fn of callers()) {
      const own = statementsOfRole(template, logicalId(fn.role)).filter((s) => s.resources.map(fakeResolve).includes(SECRET_ARN));
      expect(own, fn.node.path).toHaveLength(1);
    }
    for (const fn of [stack.executors.secrets.handler, stack.api.handler, stack.api.authorizerHandler!, stack.router.handler]) {
      const own = statementsOfRole(template, logicalId(fn.role)).filter((s) => s.resources.map(fakeResolve).includes(SECRET_ARN));
      expect(own, fn.node.path).toEqual([]);
    }
    // The sweeper's list of calls says the same as the grant.
    expect(sweeperActions('dataPlaneToken')).toEqual([...DATA_PLANE_TOKEN_ACTIONS]);
  });

  it('keeps the secret store grants as they were: only the stack\'s own ddl-control-plane/DdlControlPlane/* secrets besides the token', () => {
    const others = identityStatements(template).filter((s) => s.actions.some((a) => a.startsWith('secretsmanager:')) && !s.resources.map(fakeResolve).includes(SECRET_ARN));
    for (const s of others) expect(s.resources.map(fakeResolve).every((r) => r.endsWith(':secret:ddl-control-plane/DdlControlPlane/*') || r === '*')).toBe(true);
  });
});

describe('the dataPlaneTokenSecret prop', () => {
  it('takes a secret of the app: the ARN and the grant refer to it', () => {
    // Prepare
    const app = testApp({ [BUNDLING_STACKS]: [] });
    const holder = new Stack(app, 'Secrets');
    const secret = new secretsmanager.Secret(holder, 'DataPlaneToken');

    // Act
    const s = new DdlControlPlaneStack(app, 'DdlControlPlane', { dataPlaneUrl: URL, dataPlaneTokenSecret: secret });
    const t = Template.fromStack(s);
    const sweeperEnv = t.toJSON().Resources[logicalId(s.sweeper.handler.function)].Properties.Environment.Variables;
    const grants = identityStatements(t).filter((st) => st.actions.includes('secretsmanager:GetSecretValue') && JSON.stringify(st.resources).includes('ImportValue'));

    // Assess
    expect(sweeperEnv[DATAPLANE_TOKEN_SECRET_ARN_ENV]).toHaveProperty('Fn::ImportValue');
    expect(grants).toHaveLength(3);
    for (const g of grants) expect(g.resources).toEqual([sweeperEnv[DATAPLANE_TOKEN_SECRET_ARN_ENV]]);
  });

  it.each([
    [
      'a secret known by name only',
      { dataPlaneUrl: URL, byName: true },
      'dataPlaneTokenSecret must be known by its complete ARN (a Secret of this app, or Secret.fromSecretCompleteArn): with a partial ARN or a name, the grant would need a wildcard',
    ],
    [
      'a secret without dataPlaneUrl',
      { byName: false },
      'dataPlaneTokenSecret (prop or context "dataPlaneTokenSecretArn") is the token of an external data plane: set dataPlaneUrl (prop or context "dataPlaneUrl") too',
    ],
  ])('refuses %s', (_case, o, problem) => {
    // Prepare
    const app = testApp({ [BUNDLING_STACKS]: [] });
    const holder = new Stack(app, 'Secrets');
    const secret = o.byName
      ? secretsmanager.Secret.fromSecretNameV2(holder, 'ByName', 'ddl/dataplane-token')
      : secretsmanager.Secret.fromSecretCompleteArn(holder, 'ByArn', SECRET_ARN);

    // Act
    const error = captureError(() => new DdlControlPlaneStack(app, 'DdlControlPlane', { ...('dataPlaneUrl' in o ? { dataPlaneUrl: o.dataPlaneUrl } : {}), dataPlaneTokenSecret: secret }));

    // Assess
    expect(error).toBeInstanceOf(InvalidPropsError);
    expect((error as InvalidPropsError).problems.some((p) => p === problem)).toBe(true);
  });

  it('refuses a context value that is no secret ARN, naming the key', () => {
    // Prepare
    const app = testApp({ [DATA_PLANE_URL_CONTEXT]: URL, [DATA_PLANE_TOKEN_SECRET_ARN_CONTEXT]: 'dataplane-token', [BUNDLING_STACKS]: [] });

    // Act
    const error = captureError(() => new DdlControlPlaneStack(app, 'DdlControlPlane'));

    // Assess
    expect((error as InvalidPropsError).problems).toEqual([
      'context "dataPlaneTokenSecretArn" must be the complete ARN of a Secrets Manager secret (arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>), got "dataplane-token"',
    ]);
  });
});
