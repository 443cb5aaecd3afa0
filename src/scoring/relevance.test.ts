import { describe, expect, it } from 'vitest';
import { lexicalRelevance } from './relevance.js';

const TOOLS = [
  'read_file: Read the contents of a file in the workspace at a given path.',
  'write_file: Create or overwrite a file in the workspace with the given content.',
  'run_tests: Run the project test suite, or a single test file, and report failures.',
  'git_commit: Stage all changes and create a git commit with a message.',
  'git_log: Show the recent commit history of the current branch.',
  'create_pull_request: Open a pull request on GitHub from the current branch.',
  'query_database: Run a read-only SQL query against the application database.',
  'docker_build: Build a Docker image from a Dockerfile.',
  'deploy_service: Deploy the current build to the staging or production environment.',
  'send_slack_message: Post a message to a Slack channel.',
  'get_weather: Get the current weather and the forecast for a city.',
  'book_flight: Search and book airline flights between two airports on given dates.',
  'create_invoice: Create an invoice for a customer with line items and a due date.',
  'set_reminder: Set a reminder for the user at a given time.',
  'translate_text: Translate text between languages.',
  'get_stock_price: Get the latest stock market price for a ticker symbol.',
  'lookup_employee: Find an employee in the company directory by name, team or role.',
  'summarize_meeting: Summarize a meeting transcript into notes and action items.',
  'generate_chart: Create a chart (bar, line or pie) from tabular data.',
  'order_food: Order food delivery from a nearby restaurant.',
  'get_news: Get the latest news headlines on a topic.',
  'convert_units: Convert values between units of measurement.',
  'lint_code: Run the linter on the project and return warnings and errors.',
  'format_code: Format source files with the project code formatter.',
  'kubectl_get_pods: List Kubernetes pods in a namespace with their status.',
  'view_logs: Fetch recent application logs from the production log service.',
  'http_request: Send an HTTP request to a URL and return the status, headers and body.',
  'web_search: Search the web and return the top results with titles and snippets.',
  'check_dependencies: Audit project dependencies for known security vulnerabilities.',
  'rollback_deployment: Roll back a service to its previous deployed version.',
];

const accepted = (query: string): string[] =>
  lexicalRelevance(query, TOOLS).flatMap((score, index) =>
    score >= 0.5 ? [TOOLS[index]?.split(':')[0] ?? ''] : [],
  );

describe('lexicalRelevance over a 30-tool list', () => {
  it.each([
    ['Run the tests and tell me which ones fail.', 'run_tests'],
    ['Deploy the latest build to staging.', 'deploy_service'],
    ["What's the weather going to be like in Berlin?", 'get_weather'],
    ['Book me a flight from Boston to Denver on March 3.', 'book_flight'],
    ['Open a PR for this branch.', 'create_pull_request'],
    ['Which pods are crashing in the payments namespace?', 'kubectl_get_pods'],
    ['Translate this paragraph into Spanish.', 'translate_text'],
  ])('%s keeps %s', (query, tool) => {
    expect(accepted(query)).toContain(tool);
  });

  it('keeps only a few tools for a specific request', () => {
    expect(
      accepted('Commit these changes with the message "fix login redirect".').length,
    ).toBeLessThanOrEqual(3);
  });

  it.each([
    ['Tell me a joke about penguins.'],
    ['Thanks, that is all for today!'],
    ["What's the meaning of life?"],
  ])('scores every tool low for the unrelated %s', (query) => {
    expect(Math.max(...lexicalRelevance(query, TOOLS))).toBeLessThan(0.2);
  });

  it('gives partial credit to a related form of a word', () => {
    const [reminder = 0] = lexicalRelevance('Remind me to call the bank.', [TOOLS[13] ?? '']);
    expect(reminder).toBeGreaterThan(0.1);
    expect(reminder).toBeLessThan(0.5);
  });

  it('does not accept most tools for a long prompt that mentions many things in passing', () => {
    const prompt =
      'We have a flaky integration test in CI that passes locally but fails on the build server with a ' +
      'connection error to the database. It started this week, after changes to the database setup code and ' +
      'the Docker configuration. Locally I use Postgres in Docker; CI uses a service container. I tried a ' +
      'longer timeout, which did not help. Could you run that test file a few times, and look at the recent ' +
      'commit history for anything that could have changed the database startup? No code changes yet.';
    const kept = accepted(prompt);
    expect(kept).toContain('run_tests');
    expect(kept.length).toBeLessThanOrEqual(8);
  });

  it('handles empty inputs', () => {
    expect(lexicalRelevance('weather', [])).toEqual([]);
    expect(lexicalRelevance('', ['get_weather: weather'])).toEqual([0]);
  });
});
