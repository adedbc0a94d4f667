// Types of weft.js, Weft's JavaScript client.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Document = { [key: string]: Json };
/** An `_id` as Weft stores it: `{$oid}`, `{$date}`, a string, a number or a boolean. */
export type DocumentId = string | number | boolean | { $oid: string } | { $date: number | string };
/** A filter, sort or projection: an object (sent as JSON) or the JSON (or relaxed JSON) text. */
export type QueryValue = Document | string;

export class WeftError extends Error {
  readonly status: number;
  /** Weft's error body `{"http status code", "http status description", "message"}`, when JSON. */
  readonly body: unknown;
  constructor(status: number, message: string, body?: unknown);
  static from(response: Response): Promise<WeftError>;
}

export interface Session {
  user: string;
  token: string;
  validUntil: string | null;
}

export interface WeftOptions {
  fetch?: typeof fetch;
  session?: Session | null;
  onSession?: (session: Session | null) => void;
}

export interface FindQuery {
  filter?: QueryValue | QueryValue[];
  sort?: QueryValue;
  keys?: QueryValue;
  hint?: QueryValue;
  page?: number;
  pagesize?: number;
  count?: boolean;
}

export interface FindResult<T = Document> {
  documents: T[];
  /** The URL the request went to: what the query was, as the API reads it. */
  url: string;
  total?: number;
  pages?: number;
}

export interface WriteResult {
  etag: string | null;
}

export interface InsertResult extends WriteResult {
  id: DocumentId;
  location: string;
}

export interface LineError {
  line: number;
  message: string;
}

export interface ImportResult {
  inserted: number;
  failed: number;
  errors: LineError[];
}

export interface ImportProgress {
  sentBytes: number;
  totalBytes: number;
  inserted: number;
  failed: number;
}

export interface IndexDescription {
  _id: string;
  key: { [field: string]: 1 | -1 };
  [option: string]: Json;
}

export interface MetricSample {
  name: string;
  labels: { [label: string]: string };
  value: number;
}

export interface ChangeEvent {
  _id: { _data: string };
  operationType: 'insert' | 'replace' | 'update' | 'delete' | 'leave' | 'drop' | 'invalidate';
  wallTime?: { $date: number };
  ns?: { db: string; coll: string };
  documentKey?: { _id: DocumentId };
  fullDocument?: Document;
  updateDescription?: { updatedFields: Document; removedFields: string[] };
  cause?: 'update' | 'replace' | 'delete';
}

export type StreamState = 'connecting' | 'open' | 'paused' | 'closed';

export interface WatchOptions {
  filter?: QueryValue | QueryValue[];
  /** A stream defined in the collection's metadata, instead of an ad-hoc filter. */
  name?: string;
  avars?: Document;
  leaves?: boolean;
  /** Start after this token instead of at the live feed. */
  resumeAfter?: string;
  onEvent?: (event: ChangeEvent) => void;
  onState?: (state: StreamState) => void;
  /** The stream ended for good (no reconnection): access refused, token too old, expired credentials. */
  onError?: (error: WeftError) => void;
  minRetryMs?: number;
  maxRetryMs?: number;
  idleTimeoutMs?: number;
}

export class ChangeStream {
  /** The token of the last event delivered: the stream resumes after it. */
  readonly lastToken: string | null;
  readonly state: StreamState;
  /** How many times a connection was opened (1 + reconnections). */
  readonly connections: number;
  pause(): void;
  resume(): void;
  close(): void;
  /** Ends the current connection as a network failure would; the stream reconnects. */
  dropConnection(): void;
}

export class Weft {
  constructor(url?: string, options?: WeftOptions);
  readonly url: string;
  readonly session: Session | null;
  onSession: (session: Session | null) => void;

  login(user: string, password: string): Promise<Session>;
  logout(): void;

  urlOf(path: string, params?: { [name: string]: unknown }): string;
  fetchRaw(method: string, path: string, options?: RequestOptions): Promise<Response>;
  request(method: string, path: string, options?: RequestOptions): Promise<Response>;

  databases(paging?: { page?: number; pagesize?: number }): Promise<string[]>;
  collections(db: string, paging?: { page?: number; pagesize?: number }): Promise<string[]>;
  createDatabase(db: string, properties?: Document): Promise<void>;
  createCollection(db: string, coll: string, properties?: Document): Promise<void>;
  dropDatabase(db: string): Promise<void>;
  dropCollection(db: string, coll: string): Promise<void>;

  find<T = Document>(db: string, coll: string, query?: FindQuery): Promise<FindResult<T>>;
  count(db: string, coll: string, filter?: QueryValue): Promise<number>;
  get<T = Document>(db: string, coll: string, id: DocumentId): Promise<T | null>;
  insert(db: string, coll: string, document: Document): Promise<InsertResult>;
  insertMany(db: string, coll: string, documents: Document[], options?: { atomic?: boolean }): Promise<Document>;
  replace(db: string, coll: string, id: DocumentId, document: Document, options?: { etag?: string; upsert?: boolean }): Promise<WriteResult>;
  update(db: string, coll: string, id: DocumentId, update: Document, options?: { etag?: string; upsert?: boolean }): Promise<WriteResult>;
  remove(db: string, coll: string, id: DocumentId, options?: { etag?: string }): Promise<WriteResult>;
  updateMany(db: string, coll: string, filter: QueryValue, update: Document): Promise<Document>;
  removeMany(db: string, coll: string, filter: QueryValue): Promise<Document>;

  indexes(db: string, coll: string): Promise<IndexDescription[]>;
  createIndex(db: string, coll: string, name: string, keys: { [field: string]: 1 | -1 }, ops?: Document): Promise<void>;
  dropIndex(db: string, coll: string, name: string): Promise<void>;
  aggregate<T = Document>(db: string, coll: string, name: string, avars?: Document, paging?: { page?: number; pagesize?: number }): Promise<T[]>;
  aggregatePipeline<T = Document>(db: string, coll: string, stages: Document[], paging?: { page?: number; pagesize?: number }): Promise<T[]>;
  metrics(): Promise<MetricSample[]>;

  importNdjson(db: string, coll: string, input: string | Blob | Uint8Array, options?: {
    chunkBytes?: number;
    onProgress?: (progress: ImportProgress) => void;
  }): Promise<ImportResult>;
  exportNdjson(db: string, coll: string, query?: Omit<FindQuery, 'page' | 'pagesize' | 'count'>): Promise<string>;

  watch(db: string, coll: string, options?: WatchOptions): ChangeStream;
}

export interface RequestOptions {
  params?: { [name: string]: unknown };
  body?: unknown;
  headers?: { [name: string]: string };
  signal?: AbortSignal;
}

export function basicAuthorization(user: string, secret: string): string;
export function idSegment(id: DocumentId): { segment: string; idType: 'STRING' | 'NUMBER' | 'BOOLEAN' | 'DATE' | null };
export function parsePrometheus(text: string): MetricSample[];
