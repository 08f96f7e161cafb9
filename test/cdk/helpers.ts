/**
 * Shared set-up of the CDK tests: an App with the context of cdk.json (so the tests see the
 * feature flags `cdk synth` sees), template walkers, and the fixture entry.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { REPO_ROOT } from '../../cdk/constructs/ddl-function';

/** A stand-in entry that exports `handler`, for tests that are not about the real handlers. */
export const FIXTURE_ENTRY = join(REPO_ROOT, 'test', 'cdk', 'fixtures', 'handler.ts');

/** CDK context key: only these stacks are bundled ([] = none; assets become placeholders). */
export const BUNDLING_STACKS = 'aws:cdk:bundling-stacks';

export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
  return cdkJson.context ?? {};
}

/** An App configured like `cdk synth` (cdk.json context), plus `context`. */
export function testApp(context: Record<string, unknown> = {}): App {
  return new App({ context: { ...cdkJsonContext(), ...context } });
}

/** A bare stack for construct-level tests. */
export function bareStack(): Stack {
  return new Stack(testApp({ [BUNDLING_STACKS]: [] }), 'Test');
}

export function logicalId(construct: IConstruct): string {
  const child = construct.node.defaultChild ?? construct;
  return Stack.of(construct).getLogicalId(child as never);
}

export interface Statement {
  readonly Effect: string;
  readonly Action?: string | string[];
  readonly NotAction?: unknown;
  readonly Resource?: unknown;
  readonly NotResource?: unknown;
}

export interface FoundStatement {
  readonly policy: string;
  readonly statement: Statement;
  readonly actions: string[];
  readonly resources: unknown[];
}

/** Every statement of every identity policy (AWS::IAM::Policy, managed policies, role inline policies). */
export function identityStatements(template: Template): FoundStatement[] {
  const found: FoundStatement[] = [];
  const push = (policy: string, doc: { Statement: Statement[] }) => {
    for (const statement of doc.Statement) {
      found.push({
        policy,
        statement,
        actions: toArray(statement.Action) as string[],
        resources: toArray(statement.Resource),
      });
    }
  };
  for (const [id, r] of Object.entries(template.findResources('AWS::IAM::Policy'))) {
    push(id, r.Properties.PolicyDocument);
  }
  for (const [id, r] of Object.entries(template.findResources('AWS::IAM::ManagedPolicy'))) {
    push(id, r.Properties.PolicyDocument);
  }
  for (const [id, r] of Object.entries(template.findResources('AWS::IAM::Role'))) {
    for (const p of (r.Properties.Policies ?? []) as { PolicyName: string; PolicyDocument: { Statement: Statement[] } }[]) {
      push(`${id}/${p.PolicyName}`, p.PolicyDocument);
    }
  }
  return found;
}

/** Statements attached (through any policy) to the role of the given function construct. */
export function statementsOfRole(template: Template, roleLogicalId: string): FoundStatement[] {
  const policies = Object.entries(template.findResources('AWS::IAM::Policy'))
    .filter(([, r]) => (r.Properties.Roles as { Ref: string }[]).some((ref) => ref.Ref === roleLogicalId))
    .map(([id]) => id);
  return identityStatements(template).filter((s) => policies.includes(s.policy));
}

export function toArray(x: unknown): unknown[] {
  if (x === undefined) return [];
  return Array.isArray(x) ? x : [x];
}

/** `{Ref: id}` placeholders become `ref:<id>` strings, `Fn::GetAtt` and `Fn::Join` likewise. */
export function fakeResolve(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as Record<string, unknown>;
  if (typeof v.Ref === 'string') return `ref:${v.Ref}`;
  if (Array.isArray(v['Fn::GetAtt'])) return `getatt:${(v['Fn::GetAtt'] as string[]).join('.')}`;
  if (Array.isArray(v['Fn::Join'])) {
    const [sep, parts] = v['Fn::Join'] as [string, unknown[]];
    return parts.map(fakeResolve).join(sep);
  }
  return JSON.stringify(value);
}

/** The error `fn` throws (fails the test when it throws nothing). */
export function captureError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error, none was thrown');
}
