// STUB (to be written): GraphiQL at GET /graphql for browsers, served from the installed package.
import type { Express } from 'express';

export function mountGraphiQL(_app: Express): void {}
