// The search oracle on SQLite and PostgreSQL: see ./conformance/search.ts.
import { searchConformance } from "./conformance/search.ts";

searchConformance({ asts: 150, strings: 100, xSizedIds: 100 });
