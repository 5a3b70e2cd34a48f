// PostgreSQL's Store against SQLite's on the default world: see ./conformance/store.ts.
import { storeConformance } from "./conformance/store.ts";

storeConformance();
