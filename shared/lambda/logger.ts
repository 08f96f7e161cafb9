/**
 * One Powertools logger factory. Log level and service name come from the standard POWERTOOLS_*
 * variables (set by the CDK stack, or by the local runtime).
 */
import { Logger } from '@aws-lambda-powertools/logger';

export function makeLogger(serviceName: string): Logger {
  return new Logger({ serviceName });
}
