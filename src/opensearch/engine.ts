/**
 * The engine port: the one way the service, the indexer and the operations tools reach
 * OpenSearch. Only src/opensearch/ imports the client library (a dependency rule in
 * .dependency-cruiser.cjs fails any other file that does); everything else holds an `Engine`.
 *
 *   const engine = createEngine(config.opensearchUrl, config.opensearchAccess); // 10 s a call
 *   const { body } = await engine.search({ index, body: query }, { deadline });  // a request's call
 *   await engine.writer().bulk({ body: lines });                                 // 120 s a call
 *
 * Every call takes the same options (`EngineCall`): a request's `deadline` (the call gets the
 * time left as its timeout, and a failure to connect is retried once within it: ./deadline.ts),
 * else a `timeoutMs`; `ignore` returns the listed statuses as answers instead of failures (a
 * get's 404). `_search` and `_msearch` go through the thin transport (./search-transport.ts),
 * which also ends them when the deadline's signal aborts (the caller hung up), and take no
 * `ignore`; the rest go through the client's own. Failures are the client's errors, read by the
 * one mapping in ./failures.ts.
 *
 * An engine is a plain object of functions, so a test can wrap it in a Proxy and count or
 * delay any call.
 */
import type { API, Client, Types } from '@opensearch-project/opensearch';
import type { OpenSearchAccess } from '../config.js';
import type { Deadline } from '../deadline.js';
import { createOpenSearchClient, searchRequestTimeoutMs, writeRequestTimeoutMs } from './client.js';
import { withinDeadline } from './deadline.js';
import { createSearchTransport, type EngineCallOptions } from './search-transport.js';

export type { API, Types };
export { searchRequestTimeoutMs, writeRequestTimeoutMs };

/** How one call runs. */
export interface EngineCall {
  /** The request's deadline: the call gets the time left and is abandoned at it. */
  deadline?: Deadline;
  /** Without a deadline: what the call may take (default: the engine's, 10 s or the writer's 120 s). */
  timeoutMs?: number;
  /** Resends after a failed connection or a 502/503/504 (default 1; 0 under a deadline). */
  maxRetries?: number;
  /** Answer statuses returned as answers, not thrown (a get's 404, a create's 409). */
  ignore?: number[];
  /** What the call is for, as a missed deadline names it (`job detail`); default: the engine call's name. */
  operation?: string;
}

/** A search's options: its failures are always thrown (the thin transport has no `ignore`). */
export type SearchCall = Omit<EngineCall, 'ignore'>;

/** What a call answers: the engine's body and its status. */
export interface EngineAnswer<Body> {
  body: Body;
  statusCode: number | null;
}

type Call<Request, Body> = (request: Request, call?: EngineCall) => Promise<EngineAnswer<Body>>;
type SearchCallOf<Request, Body> = (request: Request, call?: SearchCall) => Promise<EngineAnswer<Body>>;
type OptionalCall<Request, Body> = (request?: Request, call?: EngineCall) => Promise<EngineAnswer<Body>>;

export interface Engine {
  search: SearchCallOf<API.Search_Request, API.Search_ResponseBody>;
  msearch: SearchCallOf<API.Msearch_Request, API.Msearch_ResponseBody>;
  count: OptionalCall<API.Count_Request, API.Count_ResponseBody>;
  get: Call<API.Get_Request, API.Get_ResponseBody>;
  exists: Call<API.Exists_Request, API.Exists_ResponseBody>;
  mget: Call<API.Mget_Request, API.Mget_ResponseBody>;
  bulk: Call<API.Bulk_Request, API.Bulk_ResponseBody>;
  index: Call<API.Index_Request, API.Index_ResponseBody>;
  create: Call<API.Create_Request, API.Create_ResponseBody>;
  update: Call<API.Update_Request, API.Update_ResponseBody>;
  delete: Call<API.Delete_Request, API.Delete_ResponseBody>;
  deleteByQuery: Call<API.DeleteByQuery_Request, API.DeleteByQuery_ResponseBody>;
  updateByQuery: Call<API.UpdateByQuery_Request, API.UpdateByQuery_ResponseBody>;
  reindex: Call<API.Reindex_Request, API.Reindex_ResponseBody>;
  scroll: OptionalCall<API.Scroll_Request, API.Scroll_ResponseBody>;
  clearScroll: OptionalCall<API.ClearScroll_Request, API.ClearScroll_ResponseBody>;
  createPit: Call<API.CreatePit_Request, API.CreatePit_ResponseBody>;
  deletePit: OptionalCall<API.DeletePit_Request, API.DeletePit_ResponseBody>;
  getAllPits: OptionalCall<API.GetAllPits_Request, API.GetAllPits_ResponseBody>;
  info: OptionalCall<API.Info_Request, API.Info_ResponseBody>;
  indices: {
    create: Call<API.Indices_Create_Request, API.Indices_Create_ResponseBody>;
    delete: Call<API.Indices_Delete_Request, API.Indices_Delete_ResponseBody>;
    exists: Call<API.Indices_Exists_Request, API.Indices_Exists_ResponseBody>;
    get: Call<API.Indices_Get_Request, API.Indices_Get_ResponseBody>;
    close: Call<API.Indices_Close_Request, API.Indices_Close_ResponseBody>;
    refresh: OptionalCall<API.Indices_Refresh_Request, API.Indices_Refresh_ResponseBody>;
    forcemerge: OptionalCall<API.Indices_Forcemerge_Request, API.Indices_Forcemerge_ResponseBody>;
    stats: OptionalCall<API.Indices_Stats_Request, API.Indices_Stats_ResponseBody>;
    analyze: OptionalCall<API.Indices_Analyze_Request, API.Indices_Analyze_ResponseBody>;
    addBlock: Call<API.Indices_AddBlock_Request, API.Indices_AddBlock_ResponseBody>;
    getMapping: OptionalCall<API.Indices_GetMapping_Request, API.Indices_GetMapping_ResponseBody>;
    putMapping: Call<API.Indices_PutMapping_Request, API.Indices_PutMapping_ResponseBody>;
    getSettings: OptionalCall<API.Indices_GetSettings_Request, API.Indices_GetSettings_ResponseBody>;
    putSettings: Call<API.Indices_PutSettings_Request, API.Indices_PutSettings_ResponseBody>;
    getAlias: OptionalCall<API.Indices_GetAlias_Request, API.Indices_GetAlias_ResponseBody>;
    existsAlias: Call<API.Indices_ExistsAlias_Request, API.Indices_ExistsAlias_ResponseBody>;
    putAlias: Call<API.Indices_PutAlias_Request, API.Indices_PutAlias_ResponseBody>;
    updateAliases: Call<API.Indices_UpdateAliases_Request, API.Indices_UpdateAliases_ResponseBody>;
  };
  cluster: {
    health: OptionalCall<API.Cluster_Health_Request, API.Cluster_Health_ResponseBody>;
    putSettings: Call<API.Cluster_PutSettings_Request, API.Cluster_PutSettings_ResponseBody>;
  };
  nodes: {
    info: OptionalCall<API.Nodes_Info_Request, API.Nodes_Info_ResponseBody>;
    stats: OptionalCall<API.Nodes_Stats_Request, API.Nodes_Stats_ResponseBody>;
  };
  tasks: {
    get: Call<API.Tasks_Get_Request, API.Tasks_Get_ResponseBody>;
    list: OptionalCall<API.Tasks_List_Request, API.Tasks_List_ResponseBody>;
  };
  cat: {
    indices: OptionalCall<API.Cat_Indices_Request, API.Cat_Indices_ResponseBody>;
    shards: OptionalCall<API.Cat_Shards_Request, API.Cat_Shards_ResponseBody>;
  };
  /** The same connections, each call allowed `timeoutMs` (default 120 s): the indexer's writes, rebuild reads, reindex. */
  writer(timeoutMs?: number): Engine;
  /** Closes the connections (of every engine made from the same one). */
  close(): Promise<void>;
}

/** The engine of the node(s) at `url` (one, or several separated by commas): ./client.ts. */
export function createEngine(url: string, access: Partial<OpenSearchAccess> = {}): Engine {
  return engineOver(createOpenSearchClient(url, access));
}

type ClientOptions = { requestTimeout: number; maxRetries?: number; ignore?: number[] };
type Send<Request> = (request: Request, options: ClientOptions) => Promise<EngineAnswer<unknown>>;

/** The engine over a client made elsewhere (a test's own, with its own credentials). */
export function engineOver(client: Client, timeoutMs = searchRequestTimeoutMs): Engine {
  const transport = createSearchTransport(client, {
    requestTimeoutMs: searchRequestTimeoutMs,
    maxRetries: 1,
  });
  const optionsOf = (call: EngineCall): ClientOptions => ({
    requestTimeout: call.timeoutMs ?? timeoutMs,
    ...(call.maxRetries === undefined ? {} : { maxRetries: call.maxRetries }),
    ...(call.ignore ? { ignore: call.ignore } : {}),
  });
  // biome-ignore lint/suspicious/noExplicitAny: one wrapper serves every call's request and body types
  const wrap = (operation: string, send: Send<any>): any => {
    return (request: unknown, call: EngineCall = {}) => {
      const options = optionsOf(call);
      if (!call.deadline) return send(request ?? {}, options);
      return withinDeadline(call.deadline, call.operation ?? operation, (timed) =>
        send(request ?? {}, { ...options, ...(timed as Partial<ClientOptions>) }),
      );
    };
  };
  // the search path's calls also end when the deadline's signal aborts (the engine cancels the task)
  const thin = <Answer>(
    operation: string,
    send: (options: EngineCallOptions) => Promise<Answer>,
    call: EngineCall,
  ) => {
    const options: EngineCallOptions = {
      requestTimeout: call.timeoutMs ?? timeoutMs,
      ...(call.maxRetries === undefined ? {} : { maxRetries: call.maxRetries }),
    };
    if (!call.deadline) return send(options);
    const { signal } = call.deadline;
    return withinDeadline(call.deadline, call.operation ?? operation, (timed) =>
      send({ ...options, ...timed, signal }),
    );
  };
  const c = client;
  return {
    search: (request, call = {}) => thin('search', (o) => answered(transport.search(request, o)), call),
    msearch: (request, call = {}) => thin('search', (o) => answered(transport.msearch(request, o)), call),
    count: wrap('count', (r, o) => c.count(r, o)),
    get: wrap('get', (r, o) => c.get(r, o)),
    exists: wrap('exists', (r, o) => c.exists(r, o)),
    mget: wrap('mget', (r, o) => c.mget(r, o)),
    bulk: wrap('bulk', (r, o) => c.bulk(r, o)),
    index: wrap('index', (r, o) => c.index(r, o)),
    create: wrap('create', (r, o) => c.create(r, o)),
    update: wrap('update', (r, o) => c.update(r, o)),
    delete: wrap('delete', (r, o) => c.delete(r, o)),
    deleteByQuery: wrap('delete by query', (r, o) => c.deleteByQuery(r, o)),
    updateByQuery: wrap('update by query', (r, o) => c.updateByQuery(r, o)),
    reindex: wrap('reindex', (r, o) => c.reindex(r, o)),
    scroll: wrap('scroll', (r, o) => c.scroll(r, o)),
    clearScroll: wrap('clear scroll', (r, o) => c.clearScroll(r, o)),
    createPit: wrap('point in time', (r, o) => c.createPit(r, o)),
    deletePit: wrap('point in time', (r, o) => c.deletePit(r, o)),
    getAllPits: wrap('points in time', (r, o) => c.getAllPits(r, o)),
    info: wrap('info', (r, o) => c.info(r, o)),
    indices: indicesOf(c, wrap),
    cluster: {
      health: wrap('cluster health', (r, o) => c.cluster.health(r, o)),
      putSettings: wrap('cluster settings', (r, o) => c.cluster.putSettings(r, o)),
    },
    nodes: {
      info: wrap('nodes info', (r, o) => c.nodes.info(r, o)),
      stats: wrap('nodes stats', (r, o) => c.nodes.stats(r, o)),
    },
    tasks: {
      get: wrap('task', (r, o) => c.tasks.get(r, o)),
      list: wrap('tasks', (r, o) => c.tasks.list(r, o)),
    },
    cat: {
      indices: wrap('cat indices', (r, o) => c.cat.indices(r, o)),
      shards: wrap('cat shards', (r, o) => c.cat.shards(r, o)),
    },
    writer: (ms = writeRequestTimeoutMs) => engineOver(client, ms),
    close: () => client.close(),
  };
}

/** The thin transport answers only on success (a failure is thrown as the client throws it). */
async function answered<Body>(call: Promise<{ body: Body }>): Promise<EngineAnswer<Body>> {
  return { body: (await call).body, statusCode: 200 };
}

// biome-ignore lint/suspicious/noExplicitAny: see engineOver's wrap
function indicesOf(c: Client, wrap: (operation: string, send: Send<any>) => any): Engine['indices'] {
  const i = c.indices;
  return {
    create: wrap('create index', (r, o) => i.create(r, o)),
    delete: wrap('delete index', (r, o) => i.delete(r, o)),
    exists: wrap('index exists', (r, o) => i.exists(r, o)),
    get: wrap('get index', (r, o) => i.get(r, o)),
    close: wrap('close index', (r, o) => i.close(r, o)),
    refresh: wrap('refresh', (r, o) => i.refresh(r, o)),
    forcemerge: wrap('force merge', (r, o) => i.forcemerge(r, o)),
    stats: wrap('index stats', (r, o) => i.stats(r, o)),
    analyze: wrap('analyze', (r, o) => i.analyze(r, o)),
    addBlock: wrap('index block', (r, o) => i.addBlock(r, o)),
    getMapping: wrap('get mapping', (r, o) => i.getMapping(r, o)),
    putMapping: wrap('put mapping', (r, o) => i.putMapping(r, o)),
    getSettings: wrap('get settings', (r, o) => i.getSettings(r, o)),
    putSettings: wrap('put settings', (r, o) => i.putSettings(r, o)),
    getAlias: wrap('get alias', (r, o) => i.getAlias(r, o)),
    existsAlias: wrap('alias exists', (r, o) => i.existsAlias(r, o)),
    putAlias: wrap('put alias', (r, o) => i.putAlias(r, o)),
    updateAliases: wrap('update aliases', (r, o) => i.updateAliases(r, o)),
  };
}
