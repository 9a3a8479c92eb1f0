export function firstLine(message: unknown): string;
export function failedSpecs(suites: readonly unknown[]): string[];
export function failedUnitTests(report: unknown, cwd?: string): string[];
export function flakySpecs(suites: readonly unknown[]): string[];
