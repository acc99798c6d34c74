/**
 * The `user` schema weight: the ~1 KB User model of the heavy-validation benchmark these frameworks
 * are usually compared on (nested profile and address, role and status enums, a discriminated union
 * of payment methods, Date fields, tags), described once as data. schema-idioms.ts renders it in
 * each framework's idiom (Zod, JSON Schema, Joi, a TypeScript type); this module also gives the body
 * the runner sends, the invalid body a validator must reject, and the handler's update (the
 * benchmark's `updateUser`).
 */

export type ModelNode =
  | { kind: 'string' | 'integer' | 'boolean' | 'date' }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'literal'; value: string }
  | { kind: 'array'; of: ModelNode }
  | { kind: 'object'; fields: readonly ModelField[] }
  | { kind: 'union'; tag: string; variants: readonly ModelNode[] };

export interface ModelField {
  name: string;
  type: ModelNode;
  optional?: boolean;
}

const string = { kind: 'string' } as const;
const integer = { kind: 'integer' } as const;
const boolean = { kind: 'boolean' } as const;
const date = { kind: 'date' } as const;
const field = (name: string, type: ModelNode, optional = false): ModelField => ({ name, type, ...(optional ? { optional } : {}) });
const object = (...fields: ModelField[]): ModelNode => ({ kind: 'object', fields });
const enumOf = (...values: string[]): ModelNode => ({ kind: 'enum', values });

const PAYMENT_METHOD: ModelNode = {
  kind: 'union',
  tag: 'type',
  variants: [
    object(
      field('type', { kind: 'literal', value: 'card' }),
      field('brand', enumOf('visa', 'mastercard', 'amex')),
      field('last4', string),
      field('expiryMonth', integer),
      field('expiryYear', integer),
    ),
    object(field('type', { kind: 'literal', value: 'paypal' }), field('email', string)),
    object(field('type', { kind: 'literal', value: 'bank_transfer' }), field('iban', string), field('bic', string)),
  ],
};

/** The User model of the benchmark (its `interface User`, with the parts it leaves out filled in). */
export const USER_MODEL = object(
  field('id', integer),
  field('username', string),
  field('email', string),
  field(
    'profile',
    object(
      field('firstName', string),
      field('lastName', string),
      field('displayName', string),
      field('bio', string, true),
      field('avatarUrl', string, true),
      field('dateOfBirth', date),
    ),
  ),
  field('role', enumOf('admin', 'user', 'guest', 'moderator')),
  field('status', enumOf('active', 'suspended', 'pending_verification', 'deactivated')),
  field(
    'address',
    object(field('street', string), field('city', string), field('state', string), field('postalCode', string), field('country', string)),
  ),
  field('paymentMethods', { kind: 'array', of: PAYMENT_METHOD }),
  field(
    'preferences',
    object(
      field('theme', enumOf('light', 'dark', 'system')),
      field('language', string),
      field('notifications', object(field('email', boolean), field('sms', boolean), field('push', boolean))),
    ),
  ),
  field('createdAt', date),
  field('updatedAt', date),
  field('lastLoginAt', date, true),
  field('tags', { kind: 'array', of: string }),
);

/** A valid User as JSON (about 1 KB), carrying `name` as its username. */
export function userBody(name: string): Record<string, unknown> {
  return {
    id: 4217,
    username: name,
    email: 'ada.lovelace@example.com',
    profile: {
      firstName: 'Ada',
      lastName: 'Lovelace',
      displayName: 'Ada L.',
      bio: 'Mathematician and writer, known for her work on the Analytical Engine and its first published algorithm.',
      avatarUrl: 'https://cdn.example.com/avatars/4217/ada-lovelace-profile-picture.png',
      dateOfBirth: '1815-12-10T00:00:00.000Z',
    },
    role: 'admin',
    status: 'active',
    address: { street: '12 St James Square', city: 'London', state: 'Greater London', postalCode: 'SW1Y 4JH', country: 'United Kingdom' },
    paymentMethods: [
      { type: 'card', brand: 'visa', last4: '4242', expiryMonth: 12, expiryYear: 2030 },
      { type: 'paypal', email: 'ada.payments@example.com' },
      { type: 'bank_transfer', iban: 'GB33BUKB20201555555555', bic: 'BUKBGB22' },
    ],
    preferences: { theme: 'dark', language: 'en-GB', notifications: { email: true, sms: false, push: true } },
    createdAt: '2024-01-15T09:30:00.000Z',
    updatedAt: '2025-06-01T12:00:00.000Z',
    lastLoginAt: '2025-06-01T11:58:00.000Z',
    tags: ['analytical-engine', 'mathematics', 'poetry', 'early-adopter', 'beta-tester'],
  };
}

/**
 * A User a validator must reject, deep inside: the second payment method is a card without its
 * expiry (a discriminated-union member missing required fields); everything else is valid.
 */
export function invalidUserBody(name: string): Record<string, unknown> {
  const body = userBody(name);
  body.paymentMethods = [
    { type: 'card', brand: 'visa', last4: '4242', expiryMonth: 12, expiryYear: 2030 },
    { type: 'card', brand: 'visa' },
  ];
  return body;
}

/** The display name the handler's update writes: `Ada L.` for the body above. */
export function expectedDisplayName(body: Record<string, unknown>): string {
  const profile = body.profile as { firstName: string; lastName: string };
  return `${profile.firstName} ${profile.lastName.charAt(0)}.`;
}

/** The benchmark's `updateUser`, once per generated file (plain JS): what every route does with the user. */
export const UPDATE_USER = `function updateUser(user) {
  user.updatedAt = new Date();
  user.lastLoginAt = new Date();
  user.profile.displayName = user.profile.firstName + ' ' + user.profile.lastName.charAt(0) + '.';
  return user;
}`;
