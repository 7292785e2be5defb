/**
 * Process state the readiness probe reads: the request validators are compiled (src/server.ts
 * marks it once they are), and the process is not draining (set on SIGTERM, so a balancer
 * stops sending before the listener closes).
 */
let validatorsCompiled = false;
let draining = false;

export const processState = {
  markValidatorsCompiled(): void {
    validatorsCompiled = true;
  },
  markDraining(): void {
    draining = true;
  },
  get validatorsCompiled(): boolean {
    return validatorsCompiled;
  },
  get draining(): boolean {
    return draining;
  },
};
