/**
 * The one error a bad setting raises. It names the environment variable, so whoever starts the
 * server knows what to fix; main.ts turns it into exit code 78 (EX_CONFIG).
 */
export class SettingsError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid setting ${variable}: ${problem}`);
    this.name = 'SettingsError';
  }
}
