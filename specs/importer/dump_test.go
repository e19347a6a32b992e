package importer
import ("context";"testing";"time";"os";"path/filepath";"github.com/pcflow/pcflow/specs")
func TestDump(t *testing.T){
  st:=time.Now()
  cov,err:=Import(context.Background(), Options{Benchmark:"osworld",Src:"/tmp/osw/evaluation_examples",Out:"/tmp/oswout",Files:"/srv/pcflow-files/osworld"})
  if err!=nil {t.Fatal(err)}
  t.Logf("import %d tasks in %v: %+v", len(cov.Tasks), time.Since(st), cov.Totals)
  st=time.Now(); bad:=0; warn:=0
  for _,tc:=range cov.Tasks { if tc.File==""{continue}
    _,d:=specs.ParseFile(filepath.Join("/tmp/oswout",tc.File), specs.Options{})
    if d.HasErrors(){bad++; if bad<6 {t.Log(d)}} else if len(d)>0 {warn++; if warn<6 {t.Log(d)}}
  }
  t.Logf("validate in %v: %d invalid, %d with warnings", time.Since(st), bad, warn)
  _ = os.Stdout
}
