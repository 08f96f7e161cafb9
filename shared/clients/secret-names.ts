/**
 * The root of every secret's name in Secrets Manager: `<root>/<stack>/<tenant>/<secret id>` in AWS
 * (shared/definitions.ts `deploymentNames`), `<root>/<tenant>/<secret id>` locally. Here, below the
 * secret store, the deployment's description and the call recorder, which all name secrets.
 */
export const SECRET_NAME_ROOT = 'ddl-control-plane';
