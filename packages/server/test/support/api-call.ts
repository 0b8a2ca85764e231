/** JSON over HTTP with a bearer token, for tests that drive the service on a real socket. */

export interface ApiResponse {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export type ApiCall = (method: string, path: string, body?: unknown, token?: string) => Promise<ApiResponse>;

export function createApiCall(base: string, defaultToken: string): ApiCall {
  return async (method, path, body, token = defaultToken) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
}

/** Like ApiCall, but a status of 300 or more throws, naming the call and the problem. */
export function mustSucceed(call: ApiCall): ApiCall {
  return async (method, path, body, token) => {
    const res = await call(method, path, body, token);
    if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
    return res;
  };
}
