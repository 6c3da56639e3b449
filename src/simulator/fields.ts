import { invalidRequest, missingParameter } from './errors';

/**
 * Reads request fields the way the provider validates them, with its error messages and `param`.
 * Multipart bodies carry every value as a string, so `fromForm` lets "2" and "true" through;
 * JSON bodies must send real numbers and booleans. Explicit null means absent (SDK types are X|null).
 */
export class FieldReader {
  constructor(
    private readonly raw: Record<string, unknown>,
    private readonly fromForm: boolean,
    private readonly prefix = '',
  ) {}

  param(name: string): string {
    return `${this.prefix}${name}`;
  }

  has(name: string): boolean {
    return this.raw[name] !== undefined && this.raw[name] !== null;
  }

  string(name: string): string | undefined {
    const value = this.raw[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw this.typeError(name, 'a string', value);
    return value;
  }

  requiredString(name: string): string {
    const value = this.string(name);
    if (value === undefined || value.trim() === '') throw missingParameter(this.param(name));
    return value;
  }

  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (!(values as readonly string[]).includes(value)) {
      const list = values.map((v) => `'${v}'`).join(', ');
      throw invalidRequest(
        this.param(name),
        `Invalid value: '${value}'. Supported values are: ${list}.`,
      );
    }
    return value as T;
  }

  integer(name: string, min: number, max: number): number | undefined {
    let value = this.raw[name];
    if (value === undefined || value === null) return undefined;
    if (this.fromForm && typeof value === 'string' && /^-?\d+$/.test(value.trim()))
      value = Number(value);
    if (typeof value !== 'number' || !Number.isInteger(value))
      throw this.typeError(name, 'an integer', value);
    if (value < min) {
      throw invalidRequest(
        this.param(name),
        `Invalid '${this.param(name)}': integer below minimum value. Expected a value >= ${min}, but got ${value} instead.`,
        'integer_below_min_value',
      );
    }
    if (value > max) {
      throw invalidRequest(
        this.param(name),
        `Invalid '${this.param(name)}': integer above maximum value. Expected a value <= ${max}, but got ${value} instead.`,
        'integer_above_max_value',
      );
    }
    return value;
  }

  boolean(name: string): boolean | undefined {
    let value = this.raw[name];
    if (value === undefined || value === null) return undefined;
    if (this.fromForm && (value === 'true' || value === 'false')) value = value === 'true';
    if (typeof value !== 'boolean') throw this.typeError(name, 'a boolean', value);
    return value;
  }

  private typeError(name: string, expected: string, value: unknown) {
    const got = Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return invalidRequest(
      this.param(name),
      `Invalid type for '${this.param(name)}': expected ${expected}, but got ${got} instead.`,
      'invalid_type',
    );
  }
}
