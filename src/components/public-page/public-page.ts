// STUB (to be written): the public HTML page of a message at {PUBLIC_URL}/messages/{id}.
import type { Express } from 'express';
import type { AppContext } from '../../platform/context.js';

export function mountPublicPage(_app: Express, _ctx: AppContext): void {}
