/**
 * IAM sufficiency: the calls a function made (shared/clients/call-recorder.ts), evaluated
 * against its role in the synthesized template with a real IAM policy evaluator
 * (@cloud-copilot/iam-simulate), and the grants no call used.
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { RecordedCall } from '../../shared/clients/call-recorder';

/** What the template's references stand for here: pseudo parameters and resources' attributes. */
export interface Binding {
  readonly region: string;
  readonly accountId: string;
  /** logical id → attribute (`Ref`, `Arn`, `StreamArn`, ...) → value. */
  readonly resources: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** A template value with its intrinsics resolved; unknown references become an ARN nothing matches. */
export function resolve(value: unknown, b: Binding): unknown {
  if (typeof value === 'string' || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => resolve(v, b));
  const v = value as Record<string, any>;
  const unresolved = `arn:aws:unresolved:::${JSON.stringify(value)}`;
  if (typeof v.Ref === 'string') {
    const pseudo: Record<string, string> = { 'AWS::Partition': 'aws', 'AWS::Region': b.region, 'AWS::AccountId': b.accountId, 'AWS::URLSuffix': 'amazonaws.com' };
    return pseudo[v.Ref] ?? b.resources[v.Ref]?.Ref ?? unresolved;
  }
  if (Array.isArray(v['Fn::GetAtt'])) {
    const [id, attr] = v['Fn::GetAtt'] as [string, string];
    return b.resources[id]?.[attr] ?? unresolved;
  }
  if (Array.isArray(v['Fn::Join'])) {
    const [sep, parts] = v['Fn::Join'] as [string, unknown[]];
    return parts.map((p) => String(resolve(p, b))).join(sep);
  }
  if (v['Fn::Sub'] !== undefined) {
    const [text, vars] = (Array.isArray(v['Fn::Sub']) ? v['Fn::Sub'] : [v['Fn::Sub'], {}]) as [string, Record<string, unknown>];
    return text.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
      if (vars[name] !== undefined) return String(resolve(vars[name], b));
      const [id, attr] = name.split('.');
      return String(resolve(attr ? { 'Fn::GetAtt': [id, attr] } : { Ref: id }, b));
    });
  }
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x, b)]));
}

export interface PolicyDocument {
  readonly Version?: string;
  readonly Statement: readonly Record<string, any>[];
}

/** The identity policies of a role (its AWS::IAM::Policy attachments and inline policies), resolved. */
export function rolePolicies(template: Record<string, any>, roleLogicalId: string, b: Binding): { name: string; policy: PolicyDocument }[] {
  const out: { name: string; policy: PolicyDocument }[] = [];
  for (const [id, r] of Object.entries<Record<string, any>>(template.Resources)) {
    if (r.Type === 'AWS::IAM::Policy' && (r.Properties.Roles as { Ref?: string }[]).some((x) => x.Ref === roleLogicalId)) {
      out.push({ name: id, policy: resolve(r.Properties.PolicyDocument, b) as PolicyDocument });
    }
    if (id === roleLogicalId && r.Type === 'AWS::IAM::Role') {
      for (const p of (r.Properties.Policies ?? []) as { PolicyName: string; PolicyDocument: unknown }[]) {
        out.push({ name: `${id}/${p.PolicyName}`, policy: resolve(p.PolicyDocument, b) as PolicyDocument });
      }
    }
  }
  return out;
}

/** A recorded call as IAM evaluates it (several recorded calls often evaluate the same). */
export interface Request {
  readonly fn: string;
  readonly action: string;
  readonly resource: string;
  readonly leadingKeys?: readonly string[];
}

export function distinctRequests(calls: readonly RecordedCall[]): Request[] {
  const seen = new Map<string, Request>();
  for (const c of calls) {
    const r: Request = { fn: c.fn, action: c.action, resource: c.resource, ...(c.leadingKeys ? { leadingKeys: c.leadingKeys } : {}) };
    seen.set(JSON.stringify(r), r);
  }
  return [...seen.values()];
}

export interface Verdict extends Request {
  readonly result: string;
}

/** Evaluates each request against its function's policies; the verdicts other than Allowed. */
export async function denied(requests: readonly Request[], policiesOf: (fn: string) => { name: string; policy: PolicyDocument }[], accountId: string): Promise<Verdict[]> {
  const out: Verdict[] = [];
  for (const r of requests) {
    const result = await runSimulation(
      {
        request: {
          principal: `arn:aws:iam::${accountId}:role/${r.fn}`,
          action: r.action,
          resource: { resource: r.resource, accountId },
          contextVariables: r.leadingKeys ? { 'dynamodb:LeadingKeys': [...r.leadingKeys] } : {},
        },
        identityPolicies: policiesOf(r.fn),
        serviceControlPolicies: [],
        resourceControlPolicies: [],
      },
      {},
    );
    const verdict = result.resultType === 'error' ? `error: ${result.errors.message}` : result.overallResult;
    if (verdict !== 'Allowed') out.push({ ...r, result: verdict });
  }
  return out;
}

/** `*` and `?` wildcards of IAM actions and resources. */
export function iamMatch(pattern: string, value: string, caseInsensitive = false): boolean {
  const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, caseInsensitive ? 'i' : '');
  return re.test(value);
}

export interface Grant {
  readonly fn: string;
  readonly action: string;
  readonly resource: string;
}

/** Every (action, resource) an Allow statement of the policies grants, as written. */
export function grants(fn: string, policies: readonly { policy: PolicyDocument }[]): Grant[] {
  const out: Grant[] = [];
  for (const { policy } of policies) {
    for (const s of policy.Statement) {
      if (s.Effect !== 'Allow') continue;
      for (const action of [s.Action ?? []].flat() as string[]) for (const resource of [s.Resource ?? []].flat() as string[]) out.push({ fn, action, resource });
    }
  }
  return out;
}

/** The grants no request used: no request of that function whose action and resource the grant covers. */
export function unusedGrants(all: readonly Grant[], requests: readonly Request[]): Grant[] {
  return all.filter((g) => !requests.some((r) => r.fn === g.fn && iamMatch(g.action, r.action, true) && iamMatch(g.resource, r.resource)));
}
