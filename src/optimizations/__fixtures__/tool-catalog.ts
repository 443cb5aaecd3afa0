import type { JsonObject } from '../../json/json.js';

/**
 * A realistic tool list of an assistant wired to many services (33 function tools), in chat completions
 * form, with the Responses form derived from it. Some descriptions name the tools they depend on
 * (`send_email` → `search_contacts`; `run_sql_query` → `list_database_tables` → `describe_table`).
 */

function tool(name: string, description: string, parameters: Record<string, string>): JsonObject {
  const properties = Object.fromEntries(
    Object.entries(parameters).map(([key, text]) => [key, { type: 'string', description: text }]),
  );
  return {
    type: 'function',
    function: {
      name,
      description,
      parameters: { type: 'object', properties, required: Object.keys(parameters) },
    },
  };
}

export const chatToolCatalog: JsonObject[] = [
  tool('get_current_weather', 'Current weather conditions (temperature, wind, humidity) for a city.', {
    location: 'City name, e.g. "Lisbon, PT"',
    units: 'celsius or fahrenheit',
  }),
  tool('get_weather_forecast', 'Daily weather forecast for the next 10 days for a city.', {
    location: 'City name',
    days: 'Number of days, 1 to 10',
  }),
  tool('get_air_quality', 'Air quality index and pollutant levels (PM2.5, ozone) for a location.', {
    location: 'City name or coordinates',
  }),
  tool('list_calendar_events', "List the events on the user's calendar between two dates.", {
    start_date: 'ISO date of the first day',
    end_date: 'ISO date of the last day',
  }),
  tool(
    'create_calendar_event',
    'Schedule a meeting or event on the calendar. Call check_availability first to find a free slot.',
    { title: 'Event title', start: 'ISO start time', end: 'ISO end time', attendees: 'Attendee addresses' },
  ),
  tool('check_availability', 'Find free time slots shared by several people in their calendars.', {
    people: 'Comma-separated names',
    duration_minutes: 'Length of the slot',
  }),
  tool('send_email', 'Send an email message. Resolve recipient names to addresses with search_contacts.', {
    to: 'Recipient address',
    subject: 'Subject line',
    body: 'Plain-text body',
  }),
  tool('search_emails', "Search the user's mailbox by sender, subject or words in the message.", {
    query: 'Search words',
    folder: 'Mailbox folder, default inbox',
  }),
  tool('search_contacts', 'Look up people in the address book by name or company; returns their addresses.', {
    name: 'Person or company name',
  }),
  tool('crm_get_account', 'Fetch a CRM account (customer company) with owner, industry and annual revenue.', {
    account_id: 'CRM account id',
  }),
  tool(
    'crm_search_deals',
    'Search sales deals in the CRM by stage, owner or customer. See crm_get_account.',
    {
      stage: 'Pipeline stage',
      owner: 'Sales rep',
    },
  ),
  tool('crm_update_deal', "Update a sales deal's stage, amount or close date in the CRM.", {
    deal_id: 'CRM deal id',
    stage: 'New pipeline stage',
  }),
  tool('crm_log_activity', 'Log a call or note against a CRM contact or deal.', {
    deal_id: 'CRM deal id',
    note: 'What happened',
  }),
  tool(
    'run_sql_query',
    'Run a read-only SQL query on the analytics warehouse. Discover tables with list_database_tables.',
    { sql: 'A SELECT statement' },
  ),
  tool(
    'list_database_tables',
    'List the tables of the analytics warehouse; see describe_table for columns.',
    {
      schema: 'Schema name, default public',
    },
  ),
  tool('describe_table', 'Columns, types and row count of one warehouse table.', { table: 'Table name' }),
  tool('read_file', 'Read a file from the project workspace.', { path: 'Workspace-relative path' }),
  tool('write_file', 'Write text to a file in the project workspace, replacing it.', {
    path: 'Workspace-relative path',
    content: 'Full new content',
  }),
  tool('list_directory', 'List the files and folders of a workspace directory.', { path: 'Directory path' }),
  tool('search_code', 'Search the source code of the repository for a regular expression.', {
    pattern: 'Regular expression',
  }),
  tool('web_search', 'Search the web for current information and news articles.', { query: 'Search words' }),
  tool('fetch_url', 'Download a web page and return its readable text.', { url: 'Absolute URL' }),
  tool('translate_text', 'Translate text between languages.', {
    text: 'Text to translate',
    target_language: 'ISO language code',
  }),
  tool('convert_currency', 'Convert an amount of money between currencies at the exchange rate of the day.', {
    amount: 'Amount',
    from: 'ISO currency code',
    to: 'ISO currency code',
  }),
  tool('get_stock_quote', 'Latest stock price and daily change for a ticker symbol.', { symbol: 'Ticker' }),
  tool('create_jira_ticket', 'Create an issue ticket in the Jira tracker of a project.', {
    project: 'Jira project key',
    summary: 'One-line summary',
    description: 'Details of the bug or task',
  }),
  tool('search_jira_tickets', 'Search Jira issues by status, assignee or words.', { jql: 'A JQL filter' }),
  tool('post_slack_message', 'Post a message to a Slack channel.', {
    channel: 'Channel name',
    text: 'Message',
  }),
  tool('get_directions', 'Driving, walking or transit directions between two places, with travel time.', {
    origin: 'Start address',
    destination: 'End address',
  }),
  tool('search_flights', 'Search flights between two airports on a date, with prices.', {
    origin: 'IATA airport code',
    destination: 'IATA airport code',
    date: 'ISO date',
  }),
  tool('book_hotel', 'Book a hotel room in a city for check-in and check-out dates.', {
    city: 'City',
    check_in: 'ISO date',
    check_out: 'ISO date',
  }),
  tool(
    'create_invoice',
    'Create an invoice in the billing system for a customer found with crm_get_account.',
    {
      account_id: 'CRM account id',
      amount: 'Invoice total',
    },
  ),
  tool('calculate', 'Evaluate an arithmetic expression exactly.', { expression: 'e.g. 12.5 * (3 + 4)' }),
];

/** The same tools in the Responses API's flat form. */
export function responsesToolCatalog(): JsonObject[] {
  return chatToolCatalog.map((entry) => {
    const fn = entry.function;
    return typeof fn === 'object' && fn !== null ? { type: 'function', ...fn } : entry;
  });
}
