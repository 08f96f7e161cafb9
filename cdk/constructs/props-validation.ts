import { Duration, Token } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

/**
 * Thrown by a construct whose props do not hold together. It lists every problem at once, so
 * one `cdk synth` shows the whole list instead of one problem per run.
 */
export class InvalidPropsError extends Error {
  override readonly name = 'InvalidPropsError';
  readonly constructPath: string;
  readonly problems: readonly string[];

  constructor(constructPath: string, problems: readonly string[]) {
    super(`Invalid props for ${constructPath}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.constructPath = constructPath;
    this.problems = problems;
  }
}

/**
 * Collects prop problems for one construct and throws them as ONE error. Values that are still
 * tokens (resolved at deploy time) are skipped: they cannot be checked at synth time.
 */
export class PropsValidator {
  private readonly problems: string[] = [];

  constructor(
    private readonly scope: Construct,
    private readonly id: string,
  ) {}

  check(ok: boolean, problem: string): this {
    if (!ok) this.problems.push(problem);
    return this;
  }

  integerInRange(name: string, value: number | undefined, min: number, max: number): this {
    if (value === undefined || Token.isUnresolved(value)) return this;
    return this.check(
      Number.isInteger(value) && value >= min && value <= max,
      `${name} must be an integer in [${min}, ${max}], got ${value}`,
    );
  }

  durationInRange(name: string, value: Duration | undefined, min: Duration, max: Duration): this {
    if (value === undefined || Token.isUnresolved(value.toSeconds())) return this;
    const s = value.toSeconds();
    return this.check(
      s >= min.toSeconds() && s <= max.toSeconds(),
      `${name} must be between ${min.toHumanString()} and ${max.toHumanString()}, got ${value.toHumanString()}`,
    );
  }

  nonEmpty(name: string, value: string | undefined): this {
    if (value === undefined || Token.isUnresolved(value)) return this;
    return this.check(value.trim().length > 0, `${name} must not be empty`);
  }

  /** Throws an {@link InvalidPropsError} listing every problem found, if any. */
  throwIfInvalid(): void {
    if (this.problems.length > 0) {
      const path = this.scope.node.path ? `${this.scope.node.path}/${this.id}` : this.id;
      throw new InvalidPropsError(path, this.problems);
    }
  }
}
