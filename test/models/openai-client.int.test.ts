// GET /v1/models through a real model client (issue 41, item 5): the official `openai` Python
// package (pinned in test/support/python-venv.ts) lists Skein's bots with
// `OpenAI(base_url=<skein>/v1, api_key=<a Skein token>).models.list()`, as any tool built on it
// would. It sends the token as `Authorization: Bearer`, so both a session token and an API key must
// pass that way. Each entry must satisfy the package's own `Model` type strictly (`created` an int,
// `object` "model"), and Skein's fields come along as the extra attributes the package keeps.
// Other test files create bots too, so assertions look for this file's bots within the list.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  createKey,
  createManaged,
  grant,
  registerUser,
  registerWriter,
  uniqueTag,
  type TestUser,
} from '../support/factories.js';
import { PYTHON_TEST_PACKAGES, pythonTestVenv, runCommand } from '../support/python-venv.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

// The first run installs the openai package from PyPI into the SDK's virtualenv; the machine may be loaded.
jest.setTimeout(600_000);

interface Model {
  id: string;
  object: string;
  created: number;
  owned_by: string;
  uid: string;
  user_tag: string;
  display_name: string | null;
  version: string | null;
  modalities: string[];
  integrations: string[];
}

/** What the Python script prints: how the openai package saw the list. */
interface ClientView {
  openai_version: string;
  page_type: string;
  object: string;
  models: {
    type: string;
    /** The fields the package read from the answer (model_dump(exclude_unset)), extras included. */
    dump: Model;
    /** Skein's fields, which the package keeps as extras beside its own. */
    extra: Record<string, unknown>;
    /** Errors of validating the dump strictly against openai.types.Model; empty when it fits. */
    strict_errors: string[];
  }[];
}

interface ClientFailure {
  error: string;
  status_code: number | null;
  body: unknown;
}

/**
 * Lists the models with the official client. A separate process per call: sys.argv carries the
 * base URL and the token, and the answer comes back as one JSON line on stdout.
 */
const LIST_MODELS = `
import json, sys
import openai
from openai import OpenAI
from openai.types import Model
from pydantic import ValidationError

client = OpenAI(base_url=sys.argv[1], api_key=sys.argv[2], max_retries=0, timeout=30)
try:
    page = client.models.list()
except openai.APIStatusError as error:
    print(json.dumps({"error": type(error).__name__, "status_code": error.status_code, "body": error.body}))
    sys.exit(0)
models = []
for model in page:
    dump = model.model_dump(exclude_unset=True)
    try:
        Model.model_validate(dump, strict=True)
        strict_errors = []
    except ValidationError as error:
        strict_errors = [str(e) for e in error.errors()]
    models.append({
        "type": type(model).__module__ + "." + type(model).__name__,
        "dump": dump,
        "extra": model.model_extra or {},
        "strict_errors": strict_errors,
    })
print(json.dumps({
    "openai_version": openai.__version__,
    "page_type": type(page).__name__,
    "object": page.object,
    "models": models,
}))
`;

let api: TestServer;
let python: string;
let manager: TestUser, reader: TestUser, lostManager: TestUser;
let managerKey: string;
let stem: string;
let versioned: { uid: string; user_tag: string; created_at: string };
let plain: { uid: string; user_tag: string; created_at: string };
let deactivated: { uid: string; user_tag: string };
let banned: { uid: string; user_tag: string };

beforeAll(async () => {
  [python, api] = await Promise.all([pythonTestVenv(), startTestServer()]);
  [manager, reader, lostManager] = await Promise.all([
    registerWriter(api, { apiAccess: true }),
    registerUser(api),
    registerWriter(api),
  ]);
  managerKey = (await createKey(api, manager.token)).key;
  stem = uniqueTag('oai');
  versioned = (await createManaged(api, manager.token, {
    user_tag: `${stem}a`,
    display_name: 'Answer Bot',
    is_bot: true,
    bot: { versions: ['v1', 'v2-large'], modalities: ['text'], integrations: ['webhook'] },
  })) as typeof versioned;
  plain = (await createManaged(api, manager.token, {
    user_tag: `${stem}b`,
    is_bot: true,
  })) as typeof plain;
  deactivated = await createManaged(api, manager.token, {
    user_tag: `${stem}c`,
    is_bot: true,
    bot: { versions: ['v1'] },
  });
  const off = await api.request('POST', `/v1/managed/users/${deactivated.uid}/deactivate`, {
    token: manager.token,
  });
  expect(off.status).toBe(200);
  // A bot whose only manager is banned holds no messages.read: banned too, as user search sees it.
  banned = await createManaged(api, lostManager.token, { user_tag: `${stem}d`, is_bot: true });
  await grant(api, lostManager.uid, { scopes: [] });
}, 600_000);

afterAll(async () => {
  await api?.close();
});

async function listWithClient(token: string): Promise<ClientView | ClientFailure> {
  const result = await runCommand(python, ['-c', LIST_MODELS, `${api.url}/v1`, token], {
    // The service is on loopback: never through a proxy the environment may name.
    env: { NO_PROXY: '*', no_proxy: '*' },
  });
  if (result.code !== 0) throw new Error(`the openai client failed (exit ${result.code}):\n${result.output}`);
  const lastLine = result.output.trim().split('\n').at(-1)!;
  return JSON.parse(lastLine) as ClientView | ClientFailure;
}

function listed(view: ClientView | ClientFailure): ClientView {
  if ('error' in view)
    throw new Error(`the openai client got ${view.status_code}: ${JSON.stringify(view.body)}`);
  return view;
}

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const ours = (models: Model[]) => models.filter((m) => m.id.startsWith(stem));

describe('GET /v1/models with the official openai Python client', () => {
  it('when a manager lists models with an API key, then every visible bot comes with its versions, in the OpenAI Model shape', async () => {
    const view = listed(await listWithClient(managerKey));
    expect(view.openai_version).toBe(PYTHON_TEST_PACKAGES[0]!.split('==')[1]);
    expect(view.page_type).toBe('SyncPage[Model]');
    expect(view.object).toBe('list');
    // Every entry of the whole list (other files' bots too) fits the package's type strictly.
    expect(view.models.length).toBeGreaterThanOrEqual(4);
    for (const model of view.models) {
      expect(model.type).toBe('openai.types.model.Model');
      expect(model.strict_errors).toEqual([]);
      expect(Number.isInteger(model.dump.created)).toBe(true);
    }
    const entry = (id: string, version: string | null): Model => ({
      id,
      object: 'model',
      created: seconds(versioned.created_at),
      owned_by: manager.tag,
      uid: versioned.uid,
      user_tag: versioned.user_tag,
      display_name: 'Answer Bot',
      version,
      modalities: ['text'],
      integrations: ['webhook'],
    });
    expect(ours(view.models.map((m) => m.dump))).toEqual([
      entry(versioned.user_tag, null),
      entry(`${versioned.user_tag}:v1`, 'v1'),
      entry(`${versioned.user_tag}:v2-large`, 'v2-large'),
      {
        id: plain.user_tag,
        object: 'model',
        created: seconds(plain.created_at),
        owned_by: manager.tag,
        uid: plain.uid,
        user_tag: plain.user_tag,
        display_name: null,
        version: null,
        modalities: [],
        integrations: [],
      },
    ]);
    // Skein's fields are the extras the package keeps beside its own four.
    const first = view.models.find((m) => m.dump.id === `${versioned.user_tag}:v1`)!;
    expect(Object.keys(first.extra).sort()).toEqual(
      ['display_name', 'integrations', 'modalities', 'uid', 'user_tag', 'version'].sort(),
    );
  });

  it('when a deactivated bot and a bot whose only manager is banned exist, then the client does not list them', async () => {
    const ids = listed(await listWithClient(managerKey)).models.map((m) => m.dump.id);
    for (const hidden of [deactivated.user_tag, `${deactivated.user_tag}:v1`, banned.user_tag]) {
      expect(ids).not.toContain(hidden);
    }
    // The REST answer leaves them out alike (models.int.test.ts shows them listed before).
    const rest = await api.request<{ data: Model[] }>('GET', '/v1/models', { token: reader.token });
    expect(rest.body.data.map((m) => m.id)).not.toContain(banned.user_tag);
    expect(rest.body.data.map((m) => m.id)).not.toContain(deactivated.user_tag);
  });

  it('when the api_key is a session token, then the same bots as with the API key and as REST answers', async () => {
    const withSession = ours(listed(await listWithClient(reader.token)).models.map((m) => m.dump));
    const withKey = ours(listed(await listWithClient(managerKey)).models.map((m) => m.dump));
    const rest = await api.request<{ object: string; data: Model[] }>('GET', '/v1/models', {
      token: reader.token,
    });
    expect(withSession).toHaveLength(4);
    expect(withSession).toEqual(withKey);
    expect(withSession).toEqual(ours(rest.body.data));
  });

  it('when the api_key is wrong, then the client raises AuthenticationError on 401 in the contract shape', async () => {
    for (const token of [`${managerKey.slice(0, -4)}AAAA`, 'svc_session_nonsense', 'not-a-skein-token']) {
      const failure = (await listWithClient(token)) as ClientFailure;
      expect(failure).toMatchObject({ error: 'AuthenticationError', status_code: 401 });
      expect(failure.body).toEqual(expect.objectContaining({ detail: expect.any(String) }));
    }
  });

  it('when the key lacks messages.read, then the client raises PermissionDeniedError on 403', async () => {
    const { key } = await createKey(api, manager.token, { scopes_cap: 'messages.write' });
    const failure = (await listWithClient(key)) as ClientFailure;
    expect(failure).toMatchObject({ error: 'PermissionDeniedError', status_code: 403 });
  });
});
