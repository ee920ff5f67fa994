// A scriptable stand-in for Moodle Web Services (REST protocol) that speaks Moodle's real wire
// format on loopback, so Merino's Moodle client can be tested with no network:
//
//   GET or POST /webservice/rest/server.php
//   wstoken=…&wsfunction=…&moodlewsrestformat=json&<parameters in Moodle's form encoding: values[0]=…>
//
// As Moodle does, the query string and a form-encoded body are merged, and every failure is HTTP
// 200 with `{"exception", "errorcode", "message"}` (a wrong or missing token is `invalidtoken`).
// Users, courses, enrolments, assignments and submissions come from tables; a test can script
// exceptions, delays, HTTP statuses or exact bodies for the next call (of one function).
import type http from 'node:http';
import {
  appendBounded,
  isRecord,
  listenOnLoopback,
  pause,
  readRequestBody,
  sendJson,
  watchExchange,
  writeFlushed,
  type RecordedRequest,
} from './fake-http.js';

export type { RecordedRequest } from './fake-http.js';

export const REST_PATH = '/webservice/rest/server.php';

export interface FakeMoodleUser {
  id: number;
  username: string;
  firstname: string;
  lastname: string;
  email: string;
}

export interface FakeMoodleCourse {
  id: number;
  shortname: string;
  fullname: string;
  /** 0 hides the course from students. */
  visible?: 0 | 1;
  /** Unix seconds. */
  startdate?: number;
  enddate?: number;
}

export interface FakeMoodleAssignment {
  id: number;
  /** The course module id. */
  cmid: number;
  course: number;
  name: string;
  /** Unix seconds; 0 for none. */
  duedate: number;
  cutoffdate?: number;
}

export interface FakeMoodleSubmission {
  assignid: number;
  userid: number;
  /** Moodle's `new`, `draft`, `submitted` or `reopened`. */
  status: string;
  /** Moodle's `graded` or `notgraded`; `notgraded` when left out. */
  gradingstatus?: string;
}

export interface FakeMoodleData {
  users?: FakeMoodleUser[];
  courses?: FakeMoodleCourse[];
  /** Which users are enrolled in which courses. */
  enrolments?: Array<{ userid: number; courseid: number }>;
  assignments?: FakeMoodleAssignment[];
  submissions?: FakeMoodleSubmission[];
}

export interface ScriptedMoodleReply {
  /** Answers the next call of this function only; the next call of any function when left out. */
  wsfunction?: string;
  /** Wait before the response headers (the client's timeout or cancellation cuts it short). */
  delayMs?: number;
  /** Answer 200 with Moodle's exception JSON; `message` and `debuginfo` may hold secrets clients must not repeat. */
  exception?: { errorcode: string; message?: string; exception?: string; debuginfo?: string };
  /** Answer with this HTTP status (a web server in front of Moodle failing) and an HTML body. */
  status?: number;
  /** Answer 200 with a JSON content type and a truncated, unparsable body. */
  malformedJson?: boolean;
  /** Answer 200 with exactly this JSON value. */
  body?: unknown;
}

/** One web-service call as the fake understood it, for assertions. */
export interface RecordedMoodleCall {
  httpMethod: string;
  wsfunction: string | undefined;
  /** The token sent, wherever it was. */
  token: string | undefined;
  /** True when the token was in the URL's query string (where proxies and access logs keep it). */
  tokenInQuery: boolean;
  restFormat: string | undefined;
  /** The function's parameters, decoded from Moodle's form encoding (lists become arrays). */
  parameters: Record<string, unknown>;
}

export interface FakeMoodleServer {
  /** e.g. http://127.0.0.1:PORT/webservice/rest/server.php: an organization's `moodle.api_url`. */
  apiUrl: string;
  /** The site address (links to courses and assignments start with it). */
  siteUrl: string;
  requests: RecordedRequest[];
  calls: RecordedMoodleCall[];
  /** The calls of one function, in order. */
  callsOf(wsfunction: string): RecordedMoodleCall[];
  /** Adds rows to the tables. */
  add(data: FakeMoodleData): void;
  enqueue(...replies: ScriptedMoodleReply[]): void;
  /** How many calls the client closed before the response ended (timeouts, cancellations). */
  disconnectedRequests(): number;
  /** The most calls that were in flight at once since the start or the last reset. */
  peakConcurrentCalls(): number;
  /** Clears the queue, the recordings and the counts; the tables stay. */
  reset(): void;
  close(): Promise<void>;
}

export interface FakeMoodleServerOptions extends FakeMoodleData {
  /** The only web-service token accepted. */
  token: string;
  /** The user the token belongs to: `userid=0` means them, and an empty `courseids` means their courses. */
  tokenOwner?: { userid: number; courseIds: number[] };
  /** When set, other functions answer `accessexception`, as when they are not in the external service. */
  allowedFunctions?: string[];
}

type MoodleAnswer = unknown;

class MoodleFailure extends Error {
  constructor(
    readonly exception: string,
    readonly errorcode: string,
    message: string,
    readonly debuginfo?: string,
  ) {
    super(message);
  }

  toJson(): Record<string, unknown> {
    return {
      exception: this.exception,
      errorcode: this.errorcode,
      message: this.message,
      ...(this.debuginfo !== undefined && { debuginfo: this.debuginfo }),
    };
  }
}

function invalidParameter(debuginfo: string): MoodleFailure {
  return new MoodleFailure('invalid_parameter_exception', 'invalidparameter', 'Invalid parameter value detected', debuginfo);
}

function missingRecord(table: string): MoodleFailure {
  return new MoodleFailure('dml_missing_record_exception', 'invalidrecord', `Can't find data record in database table ${table}.`);
}

/** Moodle's form encoding back into structure: `values[0]=a&values[1]=b` → `{values: ['a', 'b']}`. */
export function decodeMoodleParameters(form: URLSearchParams): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of form) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
    if (match === null) continue;
    const path = [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((segment) => segment[1]!)];
    let node: Record<string, unknown> = root;
    path.forEach((segment, index) => {
      if (index === path.length - 1) node[segment] = value;
      else node = (isRecord(node[segment]) ? node[segment] : (node[segment] = {})) as Record<string, unknown>;
    });
  }
  return listsFromIndexes(root) as Record<string, unknown>;
}

/** An object whose keys are 0, 1, 2… is a list. */
function listsFromIndexes(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const keys = Object.keys(value);
  const converted = Object.fromEntries(keys.map((key) => [key, listsFromIndexes(value[key])]));
  const isList = keys.length > 0 && keys.every((key, index) => key === String(index));
  return isList ? keys.map((key) => converted[key]) : converted;
}

/** A bad parameter as Moodle's messages show it: whatever arrived, decoded from the form, as text. */
function printed(value: unknown): string {
  return String(value);
}

function requiredInteger(parameters: Record<string, unknown>, name: string): number {
  const raw = parameters[name];
  if (raw === undefined) throw invalidParameter(`Missing required key in single structure: ${name}`);
  const value = typeof raw === 'string' && /^-?\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value))
    throw invalidParameter(
      `${name} => Invalid parameter value detected: Invalid external api parameter: the value is "${printed(raw)}", the server was expecting "int" type`,
    );
  return value;
}

function listParameter(parameters: Record<string, unknown>, name: string, required: boolean): unknown[] {
  const raw = parameters[name];
  if (raw === undefined) {
    if (required) throw invalidParameter(`Missing required key in single structure: ${name}`);
    return [];
  }
  if (!Array.isArray(raw)) throw invalidParameter(`Only arrays accepted. The bad value is: '${printed(raw)}'`);
  return raw;
}

function booleanParameter(parameters: Record<string, unknown>, name: string): boolean {
  const raw = parameters[name];
  return raw === '1' || raw === 'true';
}

export async function startFakeMoodleServer(options: FakeMoodleServerOptions): Promise<FakeMoodleServer> {
  const users: FakeMoodleUser[] = [];
  const courses: FakeMoodleCourse[] = [];
  const enrolments: Array<{ userid: number; courseid: number }> = [];
  const assignments: FakeMoodleAssignment[] = [];
  const submissions: FakeMoodleSubmission[] = [];
  const requests: RecordedRequest[] = [];
  const calls: RecordedMoodleCall[] = [];
  const queue: ScriptedMoodleReply[] = [];
  let disconnectedCount = 0;
  let inFlight = 0;
  let peakInFlight = 0;
  const tokenOwner = options.tokenOwner ?? { userid: 2, courseIds: [] };

  function add(data: FakeMoodleData): void {
    users.push(...(data.users ?? []));
    courses.push(...(data.courses ?? []));
    enrolments.push(...(data.enrolments ?? []));
    assignments.push(...(data.assignments ?? []));
    submissions.push(...(data.submissions ?? []));
  }
  add(options);

  function userJson(user: FakeMoodleUser): Record<string, unknown> {
    return {
      id: user.id,
      username: user.username,
      firstname: user.firstname,
      lastname: user.lastname,
      fullname: `${user.firstname} ${user.lastname}`,
      email: user.email,
      department: '',
      firstaccess: 1_700_000_000,
      lastaccess: 1_710_000_000,
      auth: 'manual',
      suspended: false,
      confirmed: true,
      lang: 'en',
      theme: '',
      timezone: '99',
      mailformat: 1,
      description: '',
      descriptionformat: 1,
      profileimageurlsmall: 'http://moodle.invalid/theme/image.php/boost/core/1/u/f2',
      profileimageurl: 'http://moodle.invalid/theme/image.php/boost/core/1/u/f1',
    };
  }

  function courseJson(course: FakeMoodleCourse): Record<string, unknown> {
    return {
      id: course.id,
      shortname: course.shortname,
      fullname: course.fullname,
      displayname: course.fullname,
      enrolledusercount: enrolments.filter((enrolment) => enrolment.courseid === course.id).length,
      idnumber: '',
      visible: course.visible ?? 1,
      summary: '',
      summaryformat: 1,
      format: 'topics',
      showgrades: true,
      lang: '',
      enablecompletion: true,
      completionhasduedate: false,
      category: 1,
      progress: null,
      completed: false,
      startdate: course.startdate ?? 0,
      enddate: course.enddate ?? 0,
      marker: 0,
      lastaccess: null,
      isfavourite: false,
      hidden: false,
      overviewfiles: [],
      showactivitydates: true,
      showcompletionconditions: true,
      timemodified: 1_700_000_000,
    };
  }

  function assignmentJson(assignment: FakeMoodleAssignment): Record<string, unknown> {
    return {
      id: assignment.id,
      cmid: assignment.cmid,
      course: assignment.course,
      name: assignment.name,
      nosubmissions: 0,
      submissiondrafts: 0,
      sendnotifications: 0,
      sendlatenotifications: 0,
      sendstudentnotifications: 1,
      duedate: assignment.duedate,
      allowsubmissionsfromdate: 0,
      grade: 100,
      timemodified: 1_700_000_000,
      completionsubmit: 0,
      cutoffdate: assignment.cutoffdate ?? 0,
      gradingduedate: 0,
      teamsubmission: 0,
      requireallteammemberssubmit: 0,
      teamsubmissiongroupingid: 0,
      blindmarking: 0,
      hidegrader: 0,
      revealidentities: 0,
      attemptreopenmethod: 'none',
      maxattempts: -1,
      markingworkflow: 0,
      markingallocation: 0,
      requiresubmissionstatement: 0,
      preventsubmissionnotingroup: 0,
      configs: [],
      intro: '',
      introformat: 1,
      introfiles: [],
      introattachments: [],
    };
  }

  function usersByField(parameters: Record<string, unknown>): MoodleAnswer {
    const field = parameters.field;
    if (field === undefined) throw invalidParameter('Missing required key in single structure: field');
    const values = listParameter(parameters, 'values', true).map(String);
    const matches = (user: FakeMoodleUser): boolean => {
      switch (field) {
        case 'id':
          return values.includes(String(user.id));
        case 'username':
          return values.includes(user.username);
        case 'email':
          return values.some((value) => value.toLowerCase() === user.email.toLowerCase());
        case 'idnumber':
          return false;
        default:
          throw invalidParameter(`field => Invalid parameter value detected: ${printed(field)}`);
      }
    };
    return users.filter(matches).map(userJson);
  }

  function usersCourses(parameters: Record<string, unknown>): MoodleAnswer {
    const userid = requiredInteger(parameters, 'userid');
    if (!users.some((user) => user.id === userid) && userid !== tokenOwner.userid) throw missingRecord('user');
    const enrolled = new Set(enrolments.filter((enrolment) => enrolment.userid === userid).map((enrolment) => enrolment.courseid));
    return courses.filter((course) => enrolled.has(course.id)).map(courseJson);
  }

  function assignmentsOf(parameters: Record<string, unknown>): MoodleAnswer {
    const asked = listParameter(parameters, 'courseids', false).map(Number);
    const includeNotEnrolled = booleanParameter(parameters, 'includenotenrolledcourses');
    // As Moodle: no course ids means "the token owner's courses", which is never the learner's business.
    const courseIds = asked.length === 0 ? tokenOwner.courseIds : asked;
    const warnings: Array<Record<string, unknown>> = [];
    const answered: Array<Record<string, unknown>> = [];
    for (const courseId of courseIds) {
      const course = courses.find((candidate) => candidate.id === courseId);
      if (course === undefined) {
        warnings.push({ item: 'course', itemid: courseId, warningcode: '1', message: 'No access rights in course context' });
        continue;
      }
      if (!includeNotEnrolled && !tokenOwner.courseIds.includes(courseId)) {
        warnings.push({
          item: 'course',
          itemid: courseId,
          warningcode: '2',
          message: 'User is not enrolled or does not have requested capability',
        });
        continue;
      }
      answered.push({
        id: course.id,
        fullname: course.fullname,
        shortname: course.shortname,
        timemodified: 1_700_000_000,
        assignments: assignments.filter((assignment) => assignment.course === course.id).map(assignmentJson),
      });
    }
    return { courses: answered, warnings };
  }

  function submissionStatus(parameters: Record<string, unknown>): MoodleAnswer {
    const assignid = requiredInteger(parameters, 'assignid');
    const userid = parameters.userid === undefined ? 0 : requiredInteger(parameters, 'userid');
    if (!assignments.some((assignment) => assignment.id === assignid)) throw missingRecord('assign');
    const forUser = userid === 0 ? tokenOwner.userid : userid;
    const submission = submissions.find((candidate) => candidate.assignid === assignid && candidate.userid === forUser);
    return {
      lastattempt: {
        // Moodle leaves `submission` out until the user has a submission record.
        ...(submission !== undefined && {
          submission: {
            id: assignid * 1000 + forUser,
            userid: forUser,
            attemptnumber: 0,
            timecreated: 1_700_000_000,
            timemodified: 1_700_000_100,
            status: submission.status,
            groupid: 0,
            assignment: assignid,
            latest: 1,
            plugins: [],
          },
        }),
        submissiongroupmemberswhoneedtosubmit: [],
        submissionsenabled: true,
        locked: false,
        graded: submission?.gradingstatus === 'graded',
        canedit: true,
        caneditowner: true,
        cansubmit: submission?.status !== 'submitted',
        extensionduedate: null,
        blocked: false,
        gradingstatus: submission?.gradingstatus ?? 'notgraded',
        usergroups: [],
      },
      warnings: [],
    };
  }

  const functions: Record<string, (parameters: Record<string, unknown>) => MoodleAnswer> = {
    core_user_get_users_by_field: usersByField,
    core_enrol_get_users_courses: usersCourses,
    mod_assign_get_assignments: assignmentsOf,
    mod_assign_get_submission_status: submissionStatus,
  };

  function answer(call: RecordedMoodleCall): MoodleAnswer {
    if (call.token === undefined || call.token !== options.token)
      throw new MoodleFailure('moodle_exception', 'invalidtoken', 'Invalid token - token not found');
    const implementation = call.wsfunction === undefined ? undefined : functions[call.wsfunction];
    if (implementation === undefined) throw missingRecord('external_functions');
    if (options.allowedFunctions !== undefined && !options.allowedFunctions.includes(call.wsfunction!)) {
      throw new MoodleFailure('webservice_access_exception', 'accessexception', 'Access control exception');
    }
    return implementation(call.parameters);
  }

  /** PHP fills $_POST only from a form-encoded (or multipart) body; anything else is ignored. */
  function formBody(request: http.IncomingMessage, text: string | undefined): URLSearchParams {
    const contentType = request.headers['content-type'] ?? '';
    return text !== undefined && contentType.startsWith('application/x-www-form-urlencoded')
      ? new URLSearchParams(text)
      : new URLSearchParams();
  }

  function recordCall(httpMethod: string, query: URLSearchParams, body: URLSearchParams): RecordedMoodleCall {
    const merged = new URLSearchParams([...query, ...body]);
    const parameters = decodeMoodleParameters(merged);
    const token = merged.get('wstoken') ?? undefined;
    const wsfunction = merged.get('wsfunction') ?? undefined;
    const restFormat = merged.get('moodlewsrestformat') ?? undefined;
    delete parameters.wstoken;
    delete parameters.wsfunction;
    delete parameters.moodlewsrestformat;
    const call: RecordedMoodleCall = { httpMethod, wsfunction, token, tokenInQuery: query.has('wstoken'), restFormat, parameters };
    appendBounded(calls, call);
    return call;
  }

  function takeScripted(wsfunction: string | undefined): ScriptedMoodleReply | undefined {
    const index = queue.findIndex((reply) => reply.wsfunction === undefined || reply.wsfunction === wsfunction);
    return index === -1 ? undefined : queue.splice(index, 1)[0];
  }

  async function answerScripted(reply: ScriptedMoodleReply, response: http.ServerResponse): Promise<boolean> {
    if (reply.exception !== undefined) {
      const { errorcode, message, exception, debuginfo } = reply.exception;
      sendJson(response, 200, new MoodleFailure(exception ?? 'moodle_exception', errorcode, message ?? errorcode, debuginfo).toJson());
      return true;
    }
    if (reply.status !== undefined) {
      response.writeHead(reply.status, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<html><body>Scripted HTTP ${reply.status}</body></html>`);
      return true;
    }
    if (reply.malformedJson === true) {
      response.writeHead(200, { 'content-type': 'application/json' });
      await writeFlushed(response, '[{"id": 7, "shortname": "BI');
      response.end();
      return true;
    }
    if (reply.body !== undefined) {
      sendJson(response, 200, reply.body);
      return true;
    }
    return false;
  }

  async function handle(request: http.IncomingMessage, response: http.ServerResponse, shutdownSignal: AbortSignal): Promise<void> {
    const httpMethod = request.method ?? 'GET';
    const parsed = new URL(request.url ?? '/', 'http://fake.invalid');
    const bodyResult = await readRequestBody(request);
    // A form body is not JSON, so the shared reader hands it over as text.
    const text = bodyResult.kind === 'invalid' || bodyResult.kind === 'json' ? bodyResult.text : undefined;
    appendBounded(requests, {
      method: httpMethod,
      path: parsed.pathname,
      headers: { ...request.headers },
      body: text,
      receivedAt: Date.now(),
    });
    if (bodyResult.kind === 'aborted') return;
    if (parsed.pathname !== REST_PATH) {
      response.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<html><body>Not Found</body></html>');
      return;
    }
    const call = recordCall(httpMethod, parsed.searchParams, formBody(request, text));
    inFlight += 1;
    peakInFlight = Math.max(peakInFlight, inFlight);
    response.on('close', () => {
      inFlight -= 1;
    });
    const exchange = watchExchange(response, shutdownSignal, () => {
      disconnectedCount += 1;
    });
    const reply = takeScripted(call.wsfunction);
    if (reply !== undefined) {
      if (!(await pause(reply.delayMs, exchange.signal))) return;
      if (await answerScripted(reply, response)) return;
    }
    if (call.restFormat !== 'json') {
      // Moodle's default REST format is XML, which a JSON client cannot read.
      response.writeHead(200, { 'content-type': 'application/xml; charset=utf-8' });
      response.end('<?xml version="1.0" encoding="UTF-8" ?>\n<RESPONSE></RESPONSE>\n');
      return;
    }
    try {
      sendJson(response, 200, answer(call));
    } catch (error) {
      if (!(error instanceof MoodleFailure)) throw error;
      sendJson(response, 200, error.toJson());
    }
  }

  const server = await listenOnLoopback(handle);
  return {
    apiUrl: `${server.origin}${REST_PATH}`,
    siteUrl: server.origin,
    requests,
    calls,
    callsOf: (wsfunction) => calls.filter((call) => call.wsfunction === wsfunction),
    add,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    disconnectedRequests: () => disconnectedCount,
    peakConcurrentCalls: () => peakInFlight,
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      calls.length = 0;
      disconnectedCount = 0;
      peakInFlight = inFlight;
    },
    close: () => server.close(),
  };
}
