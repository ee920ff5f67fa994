/**
 * Proves the Moodle function tools (`get_moodle_courses`, `get_moodle_assignments`) against a fake
 * Moodle Web Services over real loopback HTTP: the Moodle user is the requester (by a trusted
 * Moodle id without any lookup, else by their email), never a user the model names; assignments
 * come with the requester's own submission statuses, checked for a bounded number of assignments
 * a few at a time; a course that is not the requester's is refused; the token travels only in a
 * POST body and no error repeats it or what Moodle said; without Moodle the tools are not offered,
 * and a call that arrives anyway is a clear error. LAMB's `moodle` tool name resolves to the courses tool.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { normalizeMetadata } from '../src/pipeline/assistant-metadata/metadata-normalizer.js';
import { findRegistryProblems } from '../src/assistants/metadata-registry-check.js';
import { AppError } from '../src/errors/app-error.js';
import { loadRegistries, type Registries } from '../src/pipeline/plugin-loading/registries.js';
import type { Integrations, Requester } from '../src/pipeline/plugin-contract/ports.js';
import { toolKind, type ToolContext } from '../src/pipeline/plugin-contract/tool-definition.js';
import moodleAssignments, { ASSIGNMENTS_CHECKED_MAXIMUM, SUBMISSION_STATUS_CONCURRENCY } from '../src/tools/moodle_assignments.js';
import moodleCourses from '../src/tools/moodle_courses.js';
import { startFakeMoodleServer, type FakeMoodleServer } from './fakes/fake-moodle-server.js';
import { buildToolContext, moodleIntegration as sharedMoodleIntegration } from './support/tool-context.js';
import { possiblyUnset } from './support/possibly-unset.js';

const TOKEN = 'moodle-ws-token-5f2c9a';
const MOODLE_SECRET = 'moodle-said-something-private';
const DAY = 86_400;
const now = Math.floor(Date.now() / 1000);

const ADA: Requester = { userId: 5, email: 'ada@school.test' };
const NOBODY: Requester = { userId: 6, email: 'nobody@school.test' };

let moodle: FakeMoodleServer;
let registries: Registries;

beforeAll(async () => {
  registries = await loadRegistries({ info: () => undefined, error: () => undefined });
  moodle = await startFakeMoodleServer({
    token: TOKEN,
    tokenOwner: { userid: 2, courseIds: [12] },
    users: [
      { id: 31, username: 'ada', firstname: 'Ada', lastname: 'Lovelace', email: 'Ada@School.test' },
      { id: 32, username: 'grace', firstname: 'Grace', lastname: 'Hopper', email: 'grace@school.test' },
      { id: 40, username: 'twin1', firstname: 'Twin', lastname: 'One', email: 'twin@school.test' },
      { id: 41, username: 'twin2', firstname: 'Twin', lastname: 'Two', email: 'twin@school.test' },
      { id: 50, username: 'newcomer', firstname: 'New', lastname: 'Comer', email: 'new@school.test' },
    ],
    courses: [
      { id: 7, shortname: 'BIO101', fullname: 'Biology 101', startdate: 1_756_684_800, enddate: 1_769_817_600 },
      { id: 8, shortname: 'CHEM101', fullname: 'Chemistry 101' },
      { id: 9, shortname: 'HIST', fullname: 'History (in preparation)', visible: 0 },
      { id: 12, shortname: 'MATH', fullname: 'Mathematics' },
    ],
    enrolments: [
      { userid: 31, courseid: 7 },
      { userid: 31, courseid: 8 },
      { userid: 31, courseid: 9 },
      { userid: 32, courseid: 7 },
      { userid: 32, courseid: 12 },
    ],
    assignments: [
      { id: 102, cmid: 502, course: 7, name: 'Essay on cells', duedate: now - 7 * DAY },
      { id: 101, cmid: 501, course: 7, name: 'Lab report 1', duedate: now + 7 * DAY, cutoffdate: now + 9 * DAY },
      { id: 103, cmid: 503, course: 8, name: 'Problem set', duedate: 0 },
      { id: 120, cmid: 520, course: 12, name: 'Service account homework', duedate: now + DAY },
    ],
    submissions: [
      { assignid: 101, userid: 31, status: 'submitted', gradingstatus: 'graded' },
      { assignid: 102, userid: 31, status: 'draft' },
      { assignid: 101, userid: 32, status: 'new' },
    ],
  });
});

afterAll(async () => {
  await possiblyUnset(moodle)?.close();
});

beforeEach(() => {
  moodle.reset();
});

function moodleIntegration(overrides: Partial<NonNullable<Integrations['moodle']>> = {}): NonNullable<Integrations['moodle']> {
  return sharedMoodleIntegration({ apiUrl: moodle.apiUrl, token: TOKEN }, overrides);
}

function contextFor(requester: Requester, overrides: Partial<NonNullable<Integrations['moodle']>> = {}): ToolContext {
  return buildToolContext({ requester, integrations: { moodle: moodleIntegration(overrides) } });
}

function listCourses(context: ToolContext, argumentsFromModel: Record<string, unknown> = {}) {
  return moodleCourses.function!.call(argumentsFromModel, context, {});
}

function listAssignments(context: ToolContext, argumentsFromModel: Record<string, unknown> = {}) {
  return moodleAssignments.function!.call(argumentsFromModel, context, {});
}

async function appErrorOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError, but the call succeeded');
}

describe('the Moodle tool definitions', () => {
  it('load as function tools, and LAMB classic metadata naming "weather" and "moodle" resolves to installed tools', async () => {
    expect(registries.tools.get('moodle')?.name).toBe('moodle_courses');
    expect(registries.tools.aliasesOf('moodle_courses')).toContain('moodle');
    for (const name of ['moodle_courses', 'moodle_assignments']) expect(toolKind(registries.tools.get(name)!)).toBe('function');
    expect((await moodleCourses.function!.describe({}, buildToolContext())).name).toBe('get_moodle_courses');
    expect((await moodleAssignments.function!.describe({}, buildToolContext())).name).toBe('get_moodle_assignments');
    expect(
      findRegistryProblems(normalizeMetadata({ connector: 'openai', llm: 'gpt-4.1', tools: ['weather', 'moodle'] }), registries),
    ).toEqual([]);
  });

  it('are not offered without Moodle, and a call that arrives anyway says Moodle is not configured', async () => {
    const withoutMoodle = buildToolContext({ requester: ADA });
    for (const tool of [moodleCourses, moodleAssignments]) {
      expect(tool.enabled!(withoutMoodle)).toBe(false);
      expect(tool.enabled!(contextFor(ADA))).toBe(true);
      const error = await appErrorOf(tool.function!.call({}, withoutMoodle, {}));
      expect(error.code).toBe('assistant_misconfigured');
      expect(error.message).toBe('Moodle is not configured for this organization.');
    }
    expect(moodle.requests).toHaveLength(0);
  });
});

describe('get_moodle_courses', () => {
  it("finds the requester's Moodle account by email, then lists their courses with links", async () => {
    const output = await listCourses(contextFor(ADA));
    expect(JSON.parse(output.content)).toEqual({
      moodle_user_id: 31,
      course_count: 3,
      courses: [
        { id: 7, shortname: 'BIO101', fullname: 'Biology 101', starts: '2025-09-01T00:00:00Z', ends: '2026-01-31T00:00:00Z' },
        { id: 8, shortname: 'CHEM101', fullname: 'Chemistry 101', starts: null, ends: null },
        { id: 9, shortname: 'HIST', fullname: 'History (in preparation)', starts: null, ends: null, hidden_from_students: true },
      ],
    });
    expect(output.sources).toEqual([
      { title: 'Moodle: Biology 101', url: `${moodle.siteUrl}/course/view.php?id=7` },
      { title: 'Moodle: Chemistry 101', url: `${moodle.siteUrl}/course/view.php?id=8` },
      { title: 'Moodle: History (in preparation)', url: `${moodle.siteUrl}/course/view.php?id=9` },
    ]);
    expect(moodle.calls.map((call) => [call.wsfunction, call.parameters])).toEqual([
      ['core_user_get_users_by_field', { field: 'email', values: ['ada@school.test'] }],
      ['core_enrol_get_users_courses', { userid: '31' }],
    ]);
  });

  it('sends the token only in a POST body, asking for JSON', async () => {
    await listCourses(contextFor(ADA));
    expect(moodle.calls.length).toBeGreaterThan(0);
    for (const call of moodle.calls)
      expect(call).toMatchObject({ httpMethod: 'POST', token: TOKEN, tokenInQuery: false, restFormat: 'json' });
    for (const request of moodle.requests) expect(request.path).toBe('/webservice/rest/server.php');
  });

  it('uses a trusted Moodle user id from the request without looking anyone up', async () => {
    const output = await listCourses(contextFor({ ...NOBODY, moodleUserId: '32' }));
    expect(JSON.parse(output.content).courses.map((course: { id: number }) => course.id)).toEqual([7, 12]);
    expect(moodle.callsOf('core_user_get_users_by_field')).toHaveLength(0);
    expect(moodle.calls.map((call) => call.wsfunction)).toEqual(['core_enrol_get_users_courses']);
  });

  it('ignores any user the model names: it always answers for the requester', async () => {
    const output = await listCourses(contextFor(ADA), { user_id: '32', userid: 32, email: 'grace@school.test' });
    expect(JSON.parse(output.content).moodle_user_id).toBe(31);
    expect(moodle.callsOf('core_enrol_get_users_courses').map((call) => call.parameters.userid)).toEqual(['31']);
    expect(moodle.callsOf('core_user_get_users_by_field')[0]!.parameters.values).toEqual(['ada@school.test']);
  });

  it('refuses a requester whose email no Moodle account has, without naming the email', async () => {
    const error = await appErrorOf(listCourses(contextFor(NOBODY)));
    expect(error.code).toBe('not_found');
    expect(error.message).toBe('No Moodle account has the email address of your account.');
    expect(error.message).not.toContain(NOBODY.email);
    expect(moodle.callsOf('core_enrol_get_users_courses')).toHaveLength(0);
  });

  it('refuses to guess when several Moodle accounts share the email', async () => {
    const error = await appErrorOf(listCourses(contextFor({ userId: 9, email: 'twin@school.test' })));
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain('Several Moodle accounts share the email address');
    expect(moodle.callsOf('core_enrol_get_users_courses')).toHaveLength(0);
  });

  it("turns Moodle's invalidtoken exception (HTTP 200) into a clear error that never shows the token", async () => {
    const wrongToken = 'wrong-token-that-must-not-leak';
    const error = await appErrorOf(listCourses(contextFor(ADA, { token: wrongToken })));
    expect(error.code).toBe('upstream_error');
    expect(error.message).toBe("Moodle refused the organization's web-service token (invalidtoken).");
    expect(error.details).toEqual({ moodle_errorcode: 'invalidtoken' });
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(wrongToken);
    expect(moodle.calls[0]!.token).toBe(wrongToken);
  });

  it('names only the errorcode of any other Moodle exception, never its message or debug info', async () => {
    moodle.enqueue({
      wsfunction: 'core_enrol_get_users_courses',
      exception: {
        errorcode: 'nopermissions',
        exception: 'required_capability_exception',
        message: MOODLE_SECRET,
        debuginfo: `${MOODLE_SECRET} ${TOKEN}`,
      },
    });
    const error = await appErrorOf(listCourses(contextFor(ADA)));
    expect(error.message).toBe('Moodle refused core_enrol_get_users_courses (nopermissions).');
    expect(error.message).not.toContain(MOODLE_SECRET);

    moodle.enqueue({ exception: { errorcode: `<script>${MOODLE_SECRET}</script>` } });
    expect((await appErrorOf(listCourses(contextFor(ADA)))).message).toBe('Moodle refused core_user_get_users_by_field (unknown).');
  });

  it('fails clearly on an HTTP error, a malformed answer and a Moodle that does not answer in time', async () => {
    moodle.enqueue({ status: 503 });
    const unavailable = await appErrorOf(listCourses(contextFor(ADA)));
    expect(unavailable.code).toBe('upstream_error');
    expect(unavailable.message).toBe(`Moodle at ${new URL(moodle.apiUrl).host} failed to answer (HTTP 503).`);

    moodle.enqueue({ wsfunction: 'core_enrol_get_users_courses', malformedJson: true });
    expect((await appErrorOf(listCourses(contextFor(ADA)))).message).toContain('not JSON');

    moodle.enqueue({ wsfunction: 'core_enrol_get_users_courses', body: { courses: [] } });
    expect((await appErrorOf(listCourses(contextFor(ADA)))).message).toBe(
      'Moodle sent a malformed answer to core_enrol_get_users_courses: it is not a list.',
    );

    moodle.enqueue({ delayMs: 5_000 });
    const slow = await appErrorOf(listCourses(contextFor(ADA, { timeoutMilliseconds: 200 })));
    expect(slow.code).toBe('upstream_timeout');
    expect(slow.message).toBe(`Moodle at ${new URL(moodle.apiUrl).host} did not answer within 200 ms.`);
  });
});

describe('get_moodle_assignments', () => {
  it("lists the assignments of all the requester's courses with their own submission statuses, upcoming first", async () => {
    const output = await listAssignments(contextFor(ADA));
    const content = JSON.parse(output.content);
    expect(content).toMatchObject({ moodle_user_id: 31, course_count: 3, assignment_count: 3 });
    expect(content.omitted_assignments).toBeUndefined();
    expect(content.assignments).toEqual([
      {
        id: 101,
        name: 'Lab report 1',
        course_id: 7,
        course: 'Biology 101',
        due: new Date((now + 7 * DAY) * 1000).toISOString().replace('.000Z', 'Z'),
        cut_off: new Date((now + 9 * DAY) * 1000).toISOString().replace('.000Z', 'Z'),
        submission_status: 'submitted',
        grading_status: 'graded',
      },
      {
        id: 102,
        name: 'Essay on cells',
        course_id: 7,
        course: 'Biology 101',
        due: expect.any(String),
        submission_status: 'draft',
        grading_status: 'notgraded',
      },
      {
        id: 103,
        name: 'Problem set',
        course_id: 8,
        course: 'Chemistry 101',
        due: null,
        submission_status: 'new',
        grading_status: 'notgraded',
      },
    ]);
    expect(output.sources).toEqual([
      { title: 'Moodle: Lab report 1', url: `${moodle.siteUrl}/mod/assign/view.php?id=501` },
      { title: 'Moodle: Essay on cells', url: `${moodle.siteUrl}/mod/assign/view.php?id=502` },
      { title: 'Moodle: Problem set', url: `${moodle.siteUrl}/mod/assign/view.php?id=503` },
    ]);
    const [assignmentsCall] = moodle.callsOf('mod_assign_get_assignments');
    expect(assignmentsCall!.parameters).toEqual({ courseids: ['7', '8', '9'], includenotenrolledcourses: '1' });
    const statusCalls = moodle.callsOf('mod_assign_get_submission_status').map((call) => call.parameters);
    expect(statusCalls).toHaveLength(3);
    expect(statusCalls).toEqual(
      expect.arrayContaining([
        { assignid: '101', userid: '31' },
        { assignid: '102', userid: '31' },
        { assignid: '103', userid: '31' },
      ]),
    );
  });

  it("narrows to one of the requester's courses, given as a number or a numeric string", async () => {
    for (const courseId of [8, '8']) {
      moodle.reset();
      const content = JSON.parse((await listAssignments(contextFor(ADA), { course_id: courseId })).content);
      expect(content.assignments.map((assignment: { id: number }) => assignment.id)).toEqual([103]);
      expect(moodle.callsOf('mod_assign_get_assignments')[0]!.parameters.courseids).toEqual(['8']);
    }
  });

  it("refuses a course that is not one of the requester's, before asking for any assignment", async () => {
    const error = await appErrorOf(listAssignments(contextFor(ADA), { course_id: 12 }));
    expect(error.code).toBe('forbidden');
    expect(error.message).toBe('Course 12 is not one of your Moodle courses.');
    expect(moodle.callsOf('mod_assign_get_assignments')).toHaveLength(0);
    expect(moodle.callsOf('mod_assign_get_submission_status')).toHaveLength(0);

    for (const courseId of ['abc', -1, 1.5, { id: 7 }]) {
      expect((await appErrorOf(listAssignments(contextFor(ADA), { course_id: courseId }))).code).toBe('invalid_body');
    }
  });

  it("never asks Moodle with no course ids (which would answer with the token owner's courses)", async () => {
    const content = JSON.parse((await listAssignments(contextFor({ userId: 8, email: 'new@school.test' }))).content);
    expect(content).toEqual({ moodle_user_id: 50, course_count: 0, assignment_count: 0, assignments: [] });
    expect(moodle.callsOf('mod_assign_get_assignments')).toHaveLength(0);
  });

  it('reports one assignment Moodle will not describe as unknown, and still answers for the rest', async () => {
    moodle.enqueue({ wsfunction: 'mod_assign_get_submission_status', exception: { errorcode: 'nopermissions', message: MOODLE_SECRET } });
    const output = await listAssignments(contextFor(ADA));
    const statuses = JSON.parse(output.content).assignments.map(
      (assignment: { submission_status: string }) => assignment.submission_status,
    );
    expect(statuses.filter((status: string) => status === 'unknown')).toHaveLength(1);
    expect(statuses.filter((status: string) => status !== 'unknown')).toHaveLength(2);
    expect(output.content).not.toContain(MOODLE_SECRET);
  });

  it('checks a bounded number of submission statuses, a few at a time, and counts the rest', async () => {
    const many = Array.from({ length: ASSIGNMENTS_CHECKED_MAXIMUM + 7 }, (_, index) => ({
      id: 1_000 + index,
      cmid: 2_000 + index,
      course: 8,
      name: `Exercise ${index + 1}`,
      duedate: now + (index + 1) * DAY,
    }));
    moodle.add({ assignments: many });
    moodle.enqueue(
      ...Array.from({ length: ASSIGNMENTS_CHECKED_MAXIMUM }, () => ({ wsfunction: 'mod_assign_get_submission_status', delayMs: 40 })),
    );
    const content = JSON.parse((await listAssignments(contextFor(ADA), { course_id: 8 })).content);
    expect(content.assignment_count).toBe(ASSIGNMENTS_CHECKED_MAXIMUM + 8);
    expect(content.assignments).toHaveLength(ASSIGNMENTS_CHECKED_MAXIMUM);
    expect(content.omitted_assignments).toBe(8);
    // The soonest due dates are the ones checked.
    expect(content.assignments[0].name).toBe('Exercise 1');
    expect(moodle.callsOf('mod_assign_get_submission_status')).toHaveLength(ASSIGNMENTS_CHECKED_MAXIMUM);
    expect(moodle.peakConcurrentCalls()).toBeGreaterThan(1);
    expect(moodle.peakConcurrentCalls()).toBeLessThanOrEqual(SUBMISSION_STATUS_CONCURRENCY);
  });
});
